/**
 * Deployments (read only; deploy, stop and destroy create them, see deploy.ts):
 *   GET /deployments?environmentId=   the environment's runs, oldest first (paged)
 *   GET /deployments/:id
 * The presenter here is also what /ws/client/v1 subscribers receive.
 */
import type { AppDeps } from '../../../deps.ts';
import { Deployment, DeploymentListQuery } from '../../../contract/deployments.ts';
import { listDeployments, loadDeployment } from '../../../domain/deployments/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { presenterOf } from '../../present.ts';
import { resourceRoutes } from '../../resource.ts';

export const presentDeployment = presenterOf(Deployment);

export const deploymentRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'deployments',
    schema: Deployment,
    guard: clientGuard(deps),
    list: {
      query: DeploymentListQuery,
      run: (actor, query) => listDeployments(deps.db, actor, query.environmentId, query),
      summary: "List an environment's deployments (deploy, stop and destroy runs)",
    },
    read: { run: (actor, id) => loadDeployment(deps.db, actor, id), summary: 'Read a deployment' },
  });
