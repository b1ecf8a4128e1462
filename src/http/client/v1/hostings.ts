import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { type Hosting } from '../../../db/schema/index.ts';
import { createHosting, deleteHosting, listHostings, loadHosting, updateHosting } from '../../../domain/hostings/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Hosting as HostingResponse, HostingCreate, HostingListQuery, HostingUpdate } from '../../../contract/hostings.ts';

const present = (row: Hosting) => ({
  id: row.id,
  serviceId: row.serviceId,
  tlsId: row.tlsId,
  ipId: row.ipId,
  name: row.name,
  description: row.description,
  protocol: row.protocol,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

export const hostingRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/hostings', detail: { tags: ['hostings'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createHosting(deps.db, actor, body));
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
        return { data: page.data.map(present), nextCursor: page.nextCursor };
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
    .patch('/:id', ({ actor, params, body }) => present(updateHosting(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: HostingUpdate,
      response: { 200: HostingResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'hostname_in_use', 'validation_failed') },
      detail: { summary: 'Change a hosting (options replace the stored ones whole)' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteHosting(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a hosting with its hostnames and variables' },
      },
    );
