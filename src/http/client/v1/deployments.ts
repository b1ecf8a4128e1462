/**
 * Deployments (read only; deploy, stop and destroy create them, see deploy.ts):
 *   GET /deployments?environmentId=   the environment's runs, oldest first (paged)
 *   GET /deployments/:id
 *   GET /deployments/:id/logs?after=  its deploy log (the daemon's output while it ran), oldest
 *                                     first; live lines come over /ws/client/v1 (topic deploymentLog)
 * The presenters here are also what /ws/client/v1 subscribers receive.
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { type Deployment } from '../../../db/schema/index.ts';
import { type DeploymentLogLine, deploymentLogOf } from '../../../domain/deployments/logs.ts';
import { listDeployments, loadDeployment } from '../../../domain/deployments/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Deployment as DeploymentResponse, DeploymentListQuery } from '../../../contract/deployments.ts';
import { DeploymentLogLine as DeploymentLogLineResponse, DeploymentLogQuery } from '../../../contract/logs.ts';

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

export const presentDeploymentLogLine = (line: DeploymentLogLine) => ({ seq: line.seq, at: new Date(line.at).toISOString(), stream: line.stream, text: line.text });

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
    })
    .get(
      '/:id/logs',
      ({ actor, params, query }) => {
        const deployment = loadDeployment(deps.db, actor, params.id);
        return { deployment: presentDeployment(deployment), data: deploymentLogOf(deps.db, deployment.id, query.after ?? 0).map(presentDeploymentLogLine) };
      },
      {
        params: IdParams,
        query: DeploymentLogQuery,
        response: { 200: v.object({ deployment: DeploymentResponse, data: v.array(DeploymentLogLineResponse) }), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: {
          summary: "Read a deployment's log: the output of its deploy, stop or destroy",
          description:
            'Compose output (pull, create, start), the steps Panel took and the containers\' states at the end, with the last log lines of any ' +
            'container that did not stay up. `after` continues from a line number. A long output keeps its start and its end.',
        },
      },
    );
