/**
 * A deployment's log (issue 19): what the daemon printed while its deploy, stop or destroy ran.
 *   GET /deployments/:id/logs?after=   oldest first; `after` continues from a line number
 * Live lines come over /ws/client/v1 (topic deploymentLog).
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../deps.ts';
import { IdParams } from '../../../contract/common.ts';
import { Deployment } from '../../../contract/deployments.ts';
import { DeploymentLogLine, DeploymentLogQuery } from '../../../contract/logs.ts';
import { type DeploymentLogLine as StoredLine, deploymentLogOf } from '../../../domain/deployments/logs.ts';
import { loadDeployment } from '../../../domain/deployments/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses } from '../../schemas.ts';
import { presentDeployment } from './deployments.ts';

export const presentDeploymentLogLine = (line: StoredLine) => ({ seq: line.seq, at: new Date(line.at).toISOString(), stream: line.stream, text: line.text });

export const deploymentLogRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/deployments', detail: { tags: ['deployments'] } }).use(clientGuard(deps)).get(
    '/:id/logs',
    ({ actor, params, query }) => {
      const deployment = loadDeployment(deps.db, actor, params.id);
      return { deployment: presentDeployment(deployment), data: deploymentLogOf(deps.db, deployment.id, query.after ?? 0).map(presentDeploymentLogLine) };
    },
    {
      params: IdParams,
      query: DeploymentLogQuery,
      response: { 200: v.object({ deployment: Deployment, data: v.array(DeploymentLogLine) }), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      role: 'member',
      detail: {
        summary: "Read a deployment's log: the output of its deploy, stop or destroy",
        description:
          "Compose output (pull, create, start), the steps Panel took and the containers' states at the end, with the last log lines of any " +
          'container that did not stay up. `after` continues from a line number. A long output keeps its start and its end.',
      },
    },
  );
