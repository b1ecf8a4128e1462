import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { type Container, containerRoles, containerStatuses } from '../../../db/schema/index.ts';
import { createContainer, deleteContainer, listContainers, loadContainer, updateContainer } from '../../../domain/containers/service.ts';
import { isRemovedContainer } from '../../../domain/reports/apply.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { errorResponses, IdParams, JsonColumn, JsonObject, ListQuery, listEnvelope, NoContent, Uuid } from '../../schemas.ts';

const Text255 = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));

/** Free-form JSON: identity keys (id, serviceId, serverId, containerId, status, role, ...) are stripped. */
const Json = {
  metadata: v.optional(v.nullable(JsonObject)),
  options: v.optional(v.nullable(JsonObject)),
};
/** Status and the runtime container id come from daemon reports only. */
const CreateBody = v.strictObject(
  {
    serviceId: Uuid,
    /** The server observed to host it: one of the same organization. */
    serverId: Uuid,
    containerName: Text255,
    composeServiceName: Text255,
    role: v.optional(v.picklist(containerRoles, `must be one of ${containerRoles.join(', ')}`)),
    ordinal: v.optional(
      v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'), v.maxValue(10_000, 'must be at most 10000')),
    ),
    ...Json,
  },
  'unknown field',
);
const UpdateBody = v.strictObject(Json, 'unknown field');

export const ContainerSchema = v.object({
  id: v.string(),
  serviceId: v.string(),
  serverId: v.string(),
  containerId: v.nullable(v.string()),
  containerName: v.string(),
  status: v.picklist(containerStatuses),
  /** The container no longer exists on its server (destroyed, or removed outside Panel); `status` is the last state it had. */
  isRemoved: v.boolean(),
  role: v.picklist(containerRoles),
  composeServiceName: v.string(),
  ordinal: v.number(),
  metadata: JsonColumn,
  options: JsonColumn,
  createdAt: v.string(),
  updatedAt: v.string(),
});

/** The container row as GET /containers/:id answers it (also pushed on /ws/client/v1). */
export const presentContainer = (row: Container) => ({
  id: row.id,
  serviceId: row.serviceId,
  serverId: row.serverId,
  containerId: row.containerId,
  containerName: row.containerName,
  status: row.status,
  isRemoved: isRemovedContainer(row),
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
        body: CreateBody,
        response: { 201: ContainerSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'ordinal_in_use', 'validation_failed') },
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
        query: v.object({ serviceId: v.optional(Uuid), serverId: v.optional(Uuid), ...ListQuery }),
        response: { 200: listEnvelope(ContainerSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the containers of a service or of a server' },
      },
    )
    .get('/:id', ({ actor, params }) => presentContainer(loadContainer(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ContainerSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a container' },
    })
    .patch('/:id', ({ actor, params, body }) => presentContainer(updateContainer(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: ContainerSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
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
