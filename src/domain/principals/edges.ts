import { type Actor, authorize } from '../actor.ts';
import { notFound } from '../../lib/errors.ts';
import type { Queryable } from '../shared/database.ts';
import { organizationOfScope, type Picked, pickExactlyOne } from '../variables/scope.ts';
import { findPrincipal } from './queries.ts';

/** Tenancies and bindings join a principal to a service; their lists filter by exactly one end. */
export type EdgeEnd = 'serviceId' | 'principalId';
export type EdgeListQuery = Partial<Record<EdgeEnd, string>>;

/** The list filter, once the caller may read the organization of the end it names (404 otherwise). */
export function authorizeEdgeFilter(db: Queryable, actor: Actor, query: EdgeListQuery): Picked<EdgeEnd> {
  const filter = pickExactlyOne(query, ['serviceId', 'principalId'] as const, 'serviceId');
  const organizationId =
    filter.name === 'serviceId'
      ? organizationOfScope(db, { scope: 'serviceId', id: filter.id })
      : findPrincipal(db, filter.id)?.organizationId;
  const what = filter.name === 'serviceId' ? 'service' : 'principal';
  if (organizationId === undefined) throw notFound(what);
  authorize(actor, organizationId, 'read', what);
  return filter;
}
