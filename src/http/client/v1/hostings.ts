import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { type Hosting } from '../../../db/schema/index.ts';
import { createHosting, deleteHosting, listHostings, loadHosting, updateHosting } from '../../../domain/hostings/service.ts';
import { serversRunning } from '../../../domain/ingress/queries.ts';
import { type HostingLiveState, liveStatesOf } from '../../../domain/ingress/state.ts';
import type { Queryable } from '../../../domain/shared/database.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { presentLive } from './hosting-state.ts';
import { writeWithIngress } from './ingress-refresh.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Hosting as HostingResponse, HostingCreate, HostingListQuery, HostingUpdate } from '../../../contract/hostings.ts';

const presentRow = (row: Hosting, live: HostingLiveState | undefined) => ({
  id: row.id,
  serviceId: row.serviceId,
  tlsId: row.tlsId,
  ipId: row.ipId,
  name: row.name,
  description: row.description,
  protocol: row.protocol,
  metadata: row.metadata,
  options: row.options,
  live: presentLive(row, live),
  ...timestampsOf(row),
});

export const hostingRoutes = (deps: AppDeps) => {
  const present = (row: Hosting) => presentRow(row, liveStatesOf(deps.db, [row]).get(row.id));
  /** The write, then the ingress of every server running the service (before and after). */
  const withIngress = (serviceIds: () => string[], write: (tx: Queryable) => Hosting) =>
    writeWithIngress(deps, (tx) => {
      const before = serversRunning(tx, serviceIds());
      const row = write(tx);
      return { result: row, servers: [...before, ...serversRunning(tx, [...serviceIds(), row.serviceId])] };
    });
  return new Elysia({ prefix: '/hostings', detail: { tags: ['hostings'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(withIngress(() => [body.serviceId], (tx) => createHosting(tx, actor, body)));
      },
      {
        body: HostingCreate,
        response: { 201: HostingResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'hostname_in_use', 'validation_failed') },
        detail: { summary: 'Create a routing entry for a service' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listHostings(deps.db, actor, query.serviceId, query);
        const live = liveStatesOf(deps.db, page.data);
        return { data: page.data.map((row) => presentRow(row, live.get(row.id))), nextCursor: page.nextCursor };
      },
      {
        query: HostingListQuery,
        response: { 200: listEnvelope(HostingResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the hostings of a service' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadHosting(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: HostingResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a hosting' },
    })
    .patch('/:id', ({ actor, params, body }) => present(withIngress(() => [loadHosting(deps.db, actor, params.id).serviceId], (tx) => updateHosting(tx, actor, params.id, body))), {
      params: IdParams,
      body: HostingUpdate,
      response: { 200: HostingResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'hostname_in_use', 'validation_failed') },
      detail: { summary: 'Change a hosting (options replace the stored ones whole)' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        writeWithIngress(deps, (tx) => {
          const { serviceId } = loadHosting(tx, actor, params.id);
          const servers = serversRunning(tx, [serviceId]);
          deleteHosting(tx, actor, params.id);
          return { result: undefined, servers };
        });
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a hosting with its hostnames and variables' },
      },
    );
};
