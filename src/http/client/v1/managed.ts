import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { type Managed } from '../../../db/schema/index.ts';
import { databasesOf } from '../../../domain/managed/queries.ts';
import { createManaged, deleteManaged, getManaged, listManaged, updateManaged } from '../../../domain/managed/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Managed as ManagedResponse, ManagedCreate, ManagedListQuery, ManagedUpdate } from '../../../contract/principals.ts';

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
        body: ManagedCreate,
        response: { 201: ManagedResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
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
        query: ManagedListQuery,
        response: { 200: listEnvelope(ManagedResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: "List an organization's managed database clusters" },
      },
    )
    .get('/:id', ({ actor, params }) => present(getManaged(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ManagedResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a managed database cluster' },
    })
    .patch('/:id', ({ actor, params, body }) => present(updateManaged(deps.db, deps.keyring, actor, params.id, body)), {
      params: IdParams,
      body: ManagedUpdate,
      response: { 200: ManagedResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'database_in_use', 'validation_failed') },
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
