/**
 * The events feed of an organization (issue 19), newest first:
 *   GET /events?organizationId=&kind=&serverId=&environmentId=&serviceId=&limit=&cursor=
 * `kind` is an event kind (`deployment.failed`) or a family (`deployment`). Live events come over
 * /ws/client/v1 (topic `events`); an organization's webhook receives them too.
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { type Event, eventSeverities } from '../../../db/schema/index.ts';
import { listEvents } from '../../../domain/events/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { iso } from '../../present.ts';
import { errorResponses, JsonColumn, ListQuery, listEnvelope, Uuid } from '../../schemas.ts';

export const EventSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  kind: v.string(),
  severity: v.picklist(eventSeverities),
  message: v.string(),
  serverId: v.nullable(v.string()),
  environmentId: v.nullable(v.string()),
  serviceId: v.nullable(v.string()),
  containerId: v.nullable(v.string()),
  deploymentId: v.nullable(v.string()),
  data: JsonColumn,
  createdAt: v.string(),
});

export const presentEvent = (row: Event) => ({
  id: row.id,
  organizationId: row.organizationId,
  kind: row.kind,
  severity: row.severity,
  message: row.message,
  serverId: row.serverId,
  environmentId: row.environmentId,
  serviceId: row.serviceId,
  containerId: row.containerId,
  deploymentId: row.deploymentId,
  data: row.data,
  createdAt: iso(row.createdAt),
});

const EventsQuery = v.object({
  organizationId: Uuid,
  kind: v.optional(v.pipe(v.string(), v.regex(/^[a-z][a-z_]*(\.[a-z][a-z_]*)*$/, 'must be an event kind like deployment.failed, or a family like deployment'), v.maxLength(64))),
  serverId: v.optional(Uuid),
  environmentId: v.optional(Uuid),
  serviceId: v.optional(Uuid),
  ...ListQuery,
});

export const eventRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/events', detail: { tags: ['events'] } }).use(clientGuard(deps)).get(
    '/',
    ({ actor, query }) => {
      const { limit, cursor, ...filter } = query;
      const page = listEvents(deps.db, actor, filter, { limit, cursor });
      return { data: page.data.map(presentEvent), nextCursor: page.nextCursor };
    },
    {
      query: EventsQuery,
      response: { 200: listEnvelope(EventSchema), ...errorResponses(401, 404, 422) },
      detail: {
        summary: "List an organization's events, newest first",
        description:
          'Container state changes between deploys, deploy outcomes, servers connecting and disconnecting, certificate events. ' +
          'Kept per organization: the newest 10,000, none older than 90 days.',
      },
    },
  );
