import { and, eq, ne } from 'drizzle-orm';
import { type Binding, binding, type NewBinding, principal } from '../../db/schema/index.ts';
import { type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';
import type { EdgeEnd } from '../principals/edges.ts';
import type { Queryable } from '../shared/database.ts';
import type { Picked } from '../variables/scope.ts';

export type BindingFilter = Picked<EdgeEnd>;

/** A binding with the organization of its principal (which is also its service's). */
export function findBinding(db: Queryable, id: string): { binding: Binding; organizationId: string } | undefined {
  return db
    .select({ binding, organizationId: principal.organizationId })
    .from(binding)
    .innerJoin(principal, eq(principal.id, binding.principalId))
    .where(eq(binding.id, id))
    .get();
}

export function listBindingsBy(db: Queryable, filter: BindingFilter, page: PageRequest) {
  const { where, fetch, limit } = pageWindow(binding.id, page, eq(binding[filter.name], filter.id));
  return toPage(db.select().from(binding).where(where).orderBy(binding.id).limit(fetch).all(), limit);
}

export function bindingsOfPrincipal(db: Queryable, principalId: string): Binding[] {
  return db.select().from(binding).where(eq(binding.principalId, principalId)).orderBy(binding.id).all();
}

export function bindingsOfManaged(db: Queryable, managedId: string): Binding[] {
  return db
    .select({ binding })
    .from(binding)
    .innerJoin(principal, eq(principal.id, binding.principalId))
    .where(eq(principal.managedId, managedId))
    .orderBy(binding.id)
    .all()
    .map((row) => row.binding);
}

const otherThan = (exceptId: string | undefined) => (exceptId ? ne(binding.id, exceptId) : undefined);

export function isKeyPrefixTaken(db: Queryable, serviceId: string, keyPrefix: string, exceptId?: string): boolean {
  const where = and(eq(binding.serviceId, serviceId), eq(binding.keyPrefix, keyPrefix), otherThan(exceptId));
  return db.select({ id: binding.id }).from(binding).where(where).get() !== undefined;
}

export function isEngineDefaultsTaken(db: Queryable, serviceId: string, exceptId?: string): boolean {
  const where = and(eq(binding.serviceId, serviceId), eq(binding.isEmitEngineDefaults, true), otherThan(exceptId));
  return db.select({ id: binding.id }).from(binding).where(where).get() !== undefined;
}

export function insertBinding(db: Queryable, row: NewBinding): Binding {
  return db.insert(binding).values(row).returning().get();
}

export function updateBindingRow(db: Queryable, id: string, changes: Partial<NewBinding>): Binding {
  return db.update(binding).set(changes).where(eq(binding.id, id)).returning().get()!;
}

/** Deletes the binding; its materialized variables go with it (cascade). */
export function deleteBindingRow(db: Queryable, id: string): void {
  db.delete(binding).where(eq(binding.id, id)).run();
}
