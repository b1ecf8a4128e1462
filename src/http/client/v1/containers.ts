import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { type Container } from '../../../db/schema/index.ts';
import { createContainer, deleteContainer, listContainers, loadContainer, updateContainer } from '../../../domain/containers/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Container as ContainerResponse, ContainerCreate, ContainerListQuery, ContainerUpdate } from '../../../contract/containers.ts';

/** The container row as GET /containers/:id answers it (also pushed on /ws/client/v1). */
export const presentContainer = (row: Container) => ({
  id: row.id,
  serviceId: row.serviceId,
  serverId: row.serverId,
  containerId: row.containerId,
  containerName: row.containerName,
  status: row.status,
  role: row.role,
  composeServiceName: row.composeServiceName,
  ordinal: row.ordinal,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

export const containerRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/containers', detail: { tags: ['containers'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return presentContainer(createContainer(deps.db, actor, body));
      },
      {
        body: ContainerCreate,
        response: { 201: ContainerResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'ordinal_in_use', 'validation_failed') },
        detail: { summary: 'Record a container of a service on a server' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listContainers(deps.db, actor, query, query);
        return { data: page.data.map(presentContainer), nextCursor: page.nextCursor };
      },
      {
        query: ContainerListQuery,
        response: { 200: listEnvelope(ContainerResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the containers of a service or of a server' },
      },
    )
    .get('/:id', ({ actor, params }) => presentContainer(loadContainer(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ContainerResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a container' },
    })
    .patch('/:id', ({ actor, params, body }) => presentContainer(updateContainer(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: ContainerUpdate,
      response: { 200: ContainerResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: "Replace a container's free-form metadata or options" },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteContainer(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a container record' },
      },
    );
