/**
 * The events feed as the API reads it: any member of the organization; a filter naming a server,
 * environment or service must name one of the organization's (404 otherwise, like any foreign id).
 */
import type { Event } from '../../db/schema/index.ts';
import { notFound } from '../../lib/errors.ts';
import { type Actor, authorize } from '../actor.ts';
import { findEnvironment } from '../environments/queries.ts';
import { findServer } from '../servers/queries.ts';
import { findService } from '../services/queries.ts';
import type { Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import { type EventFilter, listEventsOf } from './queries.ts';

export function listEvents(db: Queryable, actor: Actor, filter: EventFilter, page: PageRequest): Page<Event> {
  authorize(actor, filter.organizationId, 'read', 'organization');
  const owned = (found: { organizationId: string } | undefined, what: string) => {
    if (!found || found.organizationId !== filter.organizationId) throw notFound(what);
  };
  if (filter.serverId) owned(findServer(db, filter.serverId), 'server');
  if (filter.environmentId) owned(findEnvironment(db, filter.environmentId), 'environment');
  if (filter.serviceId) owned(findService(db, filter.serviceId), 'service');
  return listEventsOf(db, filter, page);
}
