/**
 * Tenancies: the host account (system principal) a service runs as. Principal and service must
 * be in the same organization, and each pair exists once.
 */
import type { Tenancy } from '../../db/schema/index.ts';
import { conflict, notFound, validationFailed } from '../../lib/errors.ts';
import { type Access, type Actor, authorize, loadFor } from '../actor.ts';
import { findPrincipal } from '../principals/queries.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import type { Queryable } from '../shared/database.ts';
import { organizationOfScope } from '../variables/scope.ts';
import { authorizeEdgeFilter, type EdgeListQuery } from '../principals/edges.ts';
import { deleteTenancyRow, findTenancy, insertTenancy, isTenancyTaken, listTenanciesBy } from './queries.ts';

export type TenancyListQuery = EdgeListQuery & PageRequest;

export function createTenancy(db: Queryable, actor: Actor, input: { principalId: string; serviceId: string }): Tenancy {
  return db.transaction((tx) => {
    const principal = findPrincipal(tx, input.principalId);
    if (!principal) throw notFound('principal');
    authorize(actor, principal.organizationId, 'write', 'principal');
    if (organizationOfScope(tx, { scope: 'serviceId', id: input.serviceId }) !== principal.organizationId) throw notFound('service');
    if (principal.kind !== 'system') throw validationFailed('a service can only run as a system principal', 'principalId');
    if (isTenancyTaken(tx, input.principalId, input.serviceId)) {
      throw conflict('tenancy_exists', 'the service already runs as this principal', 'principalId');
    }
    return insertTenancy(tx, input.principalId, input.serviceId);
  });
}

function loadTenancy(db: Queryable, actor: Actor, id: string, access: Access): Tenancy {
  return loadFor(actor, access, 'tenancy', findTenancy(db, id)).tenancy;
}

export function getTenancy(db: Queryable, actor: Actor, id: string): Tenancy {
  return loadTenancy(db, actor, id, 'read');
}

export function listTenancies(db: Queryable, actor: Actor, query: TenancyListQuery): Page<Tenancy> {
  const filter = authorizeEdgeFilter(db, actor, query);
  return listTenanciesBy(db, filter, query);
}

export function deleteTenancy(db: Queryable, actor: Actor, id: string): void {
  db.transaction((tx) => {
    loadTenancy(tx, actor, id, 'write');
    deleteTenancyRow(tx, id);
  });
}
