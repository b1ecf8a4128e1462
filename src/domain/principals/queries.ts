import { eq } from 'drizzle-orm';
import { type NewPrincipal, organization, type Principal, principal } from '../../db/schema/index.ts';
import { type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';
import type { Queryable } from '../shared/database.ts';

export type PrincipalFilter = { name: 'organizationId' | 'projectId' | 'managedId'; id: string };

export function findPrincipal(db: Queryable, id: string): Principal | undefined {
  return db.select().from(principal).where(eq(principal.id, id)).get();
}

export function listPrincipalsBy(db: Queryable, filter: PrincipalFilter, page: PageRequest) {
  const { where, fetch, limit } = pageWindow(principal.id, page, eq(principal[filter.name], filter.id));
  return toPage(db.select().from(principal).where(where).orderBy(principal.id).limit(fetch).all(), limit);
}

export function isRandomizingUsernames(db: Queryable, organizationId: string): boolean {
  const row = db.select({ value: organization.isRandomizeUsernames }).from(organization).where(eq(organization.id, organizationId)).get();
  return row?.value ?? false;
}

export function insertPrincipal(db: Queryable, row: NewPrincipal): Principal {
  return db.insert(principal).values(row).returning().get();
}

export function updatePrincipalRow(db: Queryable, id: string, changes: Partial<NewPrincipal>): Principal {
  return db.update(principal).set(changes).where(eq(principal.id, id)).returning().get()!;
}

/** Deletes the principal; its tenancies, bindings and their variables go with it (cascade). */
export function deletePrincipalRow(db: Queryable, id: string): void {
  db.delete(principal).where(eq(principal.id, id)).run();
}
