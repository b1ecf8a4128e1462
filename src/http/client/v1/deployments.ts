/**
 * Deployments (read only; deploy, stop and destroy create them, see deploy.ts):
 *   GET /deployments?environmentId=   the environment's runs, oldest first (paged)
 *   GET /deployments/:id
 * The presenters here are also what /ws/client/v1 subscribers receive.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { type Deployment } from '../../../db/schema/index.ts';
import { listDeployments, loadDeployment } from '../../../domain/deployments/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Deployment as DeploymentResponse, DeploymentListQuery } from '../../../contract/deployments.ts';

export const presentDeployment = (row: Deployment) => ({
  id: row.id,
  environmentId: row.environmentId,
  serverId: row.serverId,
  kind: row.kind,
  desiredGeneration: row.desiredGeneration,
  status: row.status,
  error: row.error,
  ...timestampsOf(row),
});


export const deploymentRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/deployments', detail: { tags: ['deployments'] } })
    .use(clientGuard(deps))
    .get(
      '/',
      ({ actor, query }) => {
        const page = listDeployments(deps.db, actor, query.environmentId, query);
        return { data: page.data.map(presentDeployment), nextCursor: page.nextCursor };
      },
      {
        query: DeploymentListQuery,
        response: { 200: listEnvelope(DeploymentResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: "List an environment's deployments (deploy, stop and destroy runs)" },
      },
    )
    .get('/:id', ({ actor, params }) => presentDeployment(loadDeployment(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: DeploymentResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a deployment' },
    });
