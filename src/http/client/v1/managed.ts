import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { type Managed, managedEngines } from '../../../db/schema/index.ts';
import { databasesOf } from '../../../domain/managed/queries.ts';
import { createManaged, deleteManaged, getManaged, listManaged, updateManaged } from '../../../domain/managed/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { EnvironmentKey, errorResponses, IdParams, ListQuery, listEnvelope, NoContent, refuseArrays, Uuid } from '../../schemas.ts';

const Name = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));
const Version = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters'));
/** A DNS name or an IP address (IPv6 without brackets). */
const Host = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(253, 'must be at most 253 characters'),
  v.regex(/^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|[0-9A-Fa-f:.]+)$/, 'must be a host name or an IP address'),
);
const Port = v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be 1 to 65535'), v.maxValue(65535, 'must be 1 to 65535'));
const Options = refuseArrays(v.strictObject({ databases: v.optional(v.array(EnvironmentKey(63))) }, 'unknown field'));

const CreateBody = v.strictObject(
  {
    organizationId: Uuid,
    name: Name,
    engine: v.picklist(managedEngines, `must be one of ${managedEngines.join(', ')}`),
    version: v.optional(v.nullable(Version)),
    host: v.optional(v.nullable(Host)),
    port: v.optional(v.nullable(Port)),
    options: v.optional(v.nullable(Options)),
  },
  'unknown field',
);
const UpdateBody = v.strictObject(
  { name: v.optional(Name), version: v.optional(v.nullable(Version)), host: v.optional(Host), port: v.optional(Port), options: v.optional(v.nullable(Options)) },
  'unknown field',
);

const ManagedSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  engine: v.picklist(managedEngines),
  version: v.nullable(v.string()),
  host: v.nullable(v.string()),
  port: v.nullable(v.number()),
  options: v.nullable(v.object({ databases: v.array(v.string()) })),
  createdAt: v.string(),
  updatedAt: v.string(),
});

const present = (row: Managed) => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  engine: row.engine,
  version: row.version,
  host: row.host,
  port: row.port,
  options: row.options === null ? null : { databases: databasesOf(row) },
  ...timestampsOf(row),
});

export const managedRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/managed', detail: { tags: ['managed'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createManaged(deps.db, actor, body));
      },
      {
        body: CreateBody,
        response: { 201: ManagedSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Register a managed database cluster' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listManaged(deps.db, actor, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: v.object({ ...ListQuery, organizationId: Uuid }),
        response: { 200: listEnvelope(ManagedSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: "List an organization's managed database clusters" },
      },
    )
    .get('/:id', ({ actor, params }) => present(getManaged(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ManagedSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a managed database cluster' },
    })
    .patch('/:id', ({ actor, params, body }) => present(updateManaged(deps.db, deps.keyring, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: ManagedSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'database_in_use', 'validation_failed') },
      detail: { summary: 'Change a managed database cluster; a new host or port rewrites its bindings' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteManaged(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a managed database cluster with its database users and their bindings' },
      },
    );
