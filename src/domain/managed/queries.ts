import { eq } from 'drizzle-orm';
import { type Managed, managed, type NewManaged } from '../../db/schema/index.ts';
import { type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';
import type { Queryable } from '../shared/database.ts';

export function findManaged(db: Queryable, id: string): Managed | undefined {
  return db.select().from(managed).where(eq(managed.id, id)).get();
}

export function listManagedOfOrganization(db: Queryable, organizationId: string, page: PageRequest) {
  const { where, fetch, limit } = pageWindow(managed.id, page, eq(managed.organizationId, organizationId));
  return toPage(db.select().from(managed).where(where).orderBy(managed.id).limit(fetch).all(), limit);
}

export function insertManaged(db: Queryable, row: NewManaged): Managed {
  return db.insert(managed).values(row).returning().get();
}

export function updateManagedRow(db: Queryable, id: string, changes: Partial<NewManaged>): Managed {
  return db.update(managed).set(changes).where(eq(managed.id, id)).returning().get()!;
}

/** Deletes the cluster; its principals go with it (cascade), and their bindings and variables with them. */
export function deleteManagedRow(db: Queryable, id: string): void {
  db.delete(managed).where(eq(managed.id, id)).run();
}

/** The cluster's `options.databases`, the names bindings may reference. */
export function databasesOf(row: Pick<Managed, 'options'>): string[] {
  const databases = row.options?.databases;
  return Array.isArray(databases) ? databases.filter((name): name is string => typeof name === 'string') : [];
}
