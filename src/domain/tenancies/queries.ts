import { and, eq } from 'drizzle-orm';
import { principal, type Tenancy, tenancy } from '../../db/schema/index.ts';
import { type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';
import type { EdgeEnd } from '../principals/edges.ts';
import type { Queryable } from '../shared/database.ts';
import type { Picked } from '../variables/scope.ts';

export type TenancyFilter = Picked<EdgeEnd>;

/** A tenancy with the organization of its principal (which is also its service's). */
export function findTenancy(db: Queryable, id: string): { tenancy: Tenancy; organizationId: string } | undefined {
  return db
    .select({ tenancy, organizationId: principal.organizationId })
    .from(tenancy)
    .innerJoin(principal, eq(principal.id, tenancy.principalId))
    .where(eq(tenancy.id, id))
    .get();
}

export function listTenanciesBy(db: Queryable, filter: TenancyFilter, page: PageRequest) {
  const { where, fetch, limit } = pageWindow(tenancy.id, page, eq(tenancy[filter.name], filter.id));
  return toPage(db.select().from(tenancy).where(where).orderBy(tenancy.id).limit(fetch).all(), limit);
}

export function isTenancyTaken(db: Queryable, principalId: string, serviceId: string): boolean {
  const where = and(eq(tenancy.principalId, principalId), eq(tenancy.serviceId, serviceId));
  return db.select({ id: tenancy.id }).from(tenancy).where(where).get() !== undefined;
}

export function insertTenancy(db: Queryable, principalId: string, serviceId: string): Tenancy {
  return db.insert(tenancy).values({ principalId, serviceId }).returning().get();
}

export function deleteTenancyRow(db: Queryable, id: string): void {
  db.delete(tenancy).where(eq(tenancy.id, id)).run();
}
