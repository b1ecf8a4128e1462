import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { ResolvedVariable } from '../../../compose/variables.ts';
import { type PreparedDeploy, prepareDeploy } from '../../../domain/deploy/plan.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { IdParams } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { DeployPreview } from '../../../contract/deployments.ts';

const entry = (variable: ResolvedVariable) => ({ ...variable, value: variable.isSecret ? null : variable.value });

function present(plan: PreparedDeploy) {
  const { compiled } = plan;
  return {
    server: { id: plan.server.id, name: plan.server.name },
    placementServerId: plan.server.id,
    blocks: [
      {
        serverId: plan.server.id,
        yaml: compiled.yaml,
        containers: compiled.containers,
        secrets: compiled.secrets.map(({ name, serviceId, key }) => ({ name, serviceId, key })),
      },
    ],
    variables: plan.services.map(({ id, composeServiceName }) => ({
      serviceId: id,
      composeServiceName,
      entries: (plan.provenance[id] ?? []).map(entry),
    })),
    warnings: plan.warnings,
  };
}

/** What a deploy of the environment would publish, computed like the deploy; enqueues nothing. */
export const deployPreviewRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/environments', detail: { tags: ['environments'] } })
    .use(clientGuard(deps))
    .get('/:id/deploy-preview', ({ actor, params }) => present(prepareDeploy(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: DeployPreview, ...errorResponses('unauthenticated', 'not_found', 'server_placement_required', 'secret_unreadable', 'compose_invalid', 'validation_failed') },
      detail: {
        summary: 'Preview the compiled runtime document of a deploy (409 server_placement_required without a pin or project default)',
      },
    });
