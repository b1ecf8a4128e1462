import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { Environment } from '../../../db/schema/index.ts';
import {
  createEnvironment,
  deleteEnvironment,
  listEnvironments,
  loadEnvironment,
  updateEnvironment,
} from '../../../domain/environments/service.ts';
import { routingServersOfEnvironment } from '../../../domain/ingress/queries.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { writeWithIngress } from './ingress-refresh.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Environment as EnvironmentResponse, EnvironmentCreate, EnvironmentListQuery, EnvironmentUpdate } from '../../../contract/environments.ts';

const present = (row: Environment) => ({
  id: row.id,
  projectId: row.projectId,
  serverId: row.serverId,
  generation: row.generation,
  name: row.name,
  description: row.description,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

export const environmentRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/environments', detail: { tags: ['environments'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createEnvironment(deps.db, actor, body));
      },
      {
        body: EnvironmentCreate,
        response: { 201: EnvironmentResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Create an environment in a project' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listEnvironments(deps.db, actor, query.projectId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: EnvironmentListQuery,
        response: { 200: listEnvelope(EnvironmentResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the environments of a project' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadEnvironment(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: EnvironmentResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read an environment' },
    })
    .patch('/:id', ({ actor, params, body }) => present(writeWithIngress(deps, (tx) => ({ result: updateEnvironment(tx, actor, params.id, body), servers: routingServersOfEnvironment(tx, params.id) }))), {
      params: IdParams,
      body: EnvironmentUpdate,
      response: { 200: EnvironmentResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: 'Change an environment; serverId sets or (null) clears the placement pin' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteEnvironment(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'validation_failed') },
        detail: { summary: 'Delete an environment (409 has_dependents while it has services)' },
      },
    );
