import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Service } from '../../../db/schema/index.ts';
import { deleteService, listServices, loadService, updateService } from '../../../domain/services/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import {
  Description,
  errorResponses,
  IdParams,
  JsonColumn,
  JsonObject,
  ListQuery,
  listEnvelope,
  NoContent,
  refuseArrays,
  Uuid,
} from '../../schemas.ts';
import { ResourceName } from './workspaces.ts';

const Resources = refuseArrays(
  v.strictObject(
    {
      cpus: v.optional(v.pipe(v.number(), v.gtValue(0, 'must be above 0'), v.maxValue(1024, 'must be at most 1024'))),
      /** Bytes, or a size with a unit such as `512m` or `2g`. */
      memory: v.optional(
        v.union(
          [v.pipe(v.number(), v.integer(), v.minValue(1)), v.pipe(v.string(), v.regex(/^[1-9][0-9]*(\.[0-9]+)?[bkmgBKMG]?$/))],
          'must be a byte count or a size such as 512m',
        ),
      ),
    },
    'unknown resource',
  ),
);

const ServiceOptions = refuseArrays(
  v.strictObject(
    {
      instances: v.optional(
        v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'), v.maxValue(100, 'must be at most 100')),
      ),
      build: v.optional(JsonObject),
      operations: v.optional(JsonObject),
      healthCheck: v.optional(JsonObject),
      resources: v.optional(Resources),
      /** Deploy hooks: only where the organization enables them. */
      hooks: v.optional(JsonObject),
    },
    'unknown option',
  ),
);

/** Services are derived from Compose, managed allocation and daemon reports: clients cannot create them. */
const UpdateBody = v.strictObject(
  {
    name: v.optional(v.nullable(ResourceName)),
    description: v.optional(v.nullable(Description)),
    /** Identity keys (id, environmentId, composeServiceName, serviceId, organizationId, projectId) are stripped. */
    metadata: v.optional(v.nullable(JsonObject)),
    options: v.optional(v.nullable(ServiceOptions)),
  },
  'unknown field',
);

const ServiceSchema = v.object({
  id: v.string(),
  environmentId: v.string(),
  /** Defaults to the Compose service key. */
  name: v.string(),
  description: v.nullable(v.string()),
  /** The Compose service key; derived, read-only. */
  composeServiceName: v.string(),
  metadata: JsonColumn,
  options: JsonColumn,
  createdAt: v.string(),
  updatedAt: v.string(),
});

const present = (row: Service) => ({
  id: row.id,
  environmentId: row.environmentId,
  name: row.name ?? row.composeServiceName,
  description: row.description,
  composeServiceName: row.composeServiceName,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

export const serviceRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/services', detail: { tags: ['services'] } })
    .use(clientGuard(deps))
    .get(
      '/',
      ({ actor, query }) => {
        const page = listServices(deps.db, actor, query.environmentId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: v.object({ environmentId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(ServiceSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the services of an environment' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadService(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ServiceSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a service' },
    })
    .patch('/:id', ({ actor, params, body }) => present(updateService(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: ServiceSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: 'Change the name, description, metadata or options of a service' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteService(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'validation_failed') },
        detail: { summary: 'Delete a service (409 has_dependents while bindings, tenancies, hostings or containers hold it)' },
      },
    );
