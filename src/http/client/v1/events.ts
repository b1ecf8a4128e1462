/**
 * The events feed of an organization (issue 19), newest first:
 *   GET /events?organizationId=&kind=&serverId=&environmentId=&serviceId=&limit=&cursor=
 * `kind` is an event kind (`deployment.failed`) or a family (`deployment`). Live events come over
 * /ws/client/v1 (topic `events`); an organization's webhook receives them too.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { listEnvelope } from '../../../contract/common.ts';
import { Event as EventResponse, EventsQuery } from '../../../contract/events.ts';
import { eventJson } from '../../../domain/events/record.ts';
import { listEvents } from '../../../domain/events/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses } from '../../schemas.ts';

/** The event as GET /events answers it (a webhook delivery carries the same). */
export const presentEvent = eventJson;

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
      response: { 200: listEnvelope(EventResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      role: 'member',
      detail: {
        summary: "List an organization's events, newest first",
        description:
          'Container state changes between deploys, deploy outcomes, servers connecting and disconnecting, certificate events. ' +
          'Kept per organization: the newest 10,000, none older than 90 days.',
      },
    },
  );
