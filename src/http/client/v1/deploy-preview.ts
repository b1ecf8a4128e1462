import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import type { ResolvedVariable } from '../../../compose/variables.ts';
import { type PreparedDeploy, prepareDeploy } from '../../../domain/deploy/plan.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { IdParams } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { DeployPreview } from '../../../contract/deployments.ts';
import { PLACEMENT_REFUSAL_CODES } from '../../../contract/errors.ts';

const entry = (variable: ResolvedVariable) => ({ ...variable, value: variable.isSecret ? null : variable.value });

function present(plan: PreparedDeploy) {
  return {
    server: { id: plan.server.id, name: plan.server.name },
    placementServerId: plan.server.id,
    blocks: plan.compiled.documents.map((document, i) => ({
      serverId: document.serverId,
      serverName: plan.servers[i]!.name,
      yaml: document.yaml,
      containers: document.containers,
      secrets: document.secrets.map(({ name, serviceId, key }) => ({ name, serviceId, key })),
    })),
    stops: plan.dropped.map(({ id, name }) => ({ id, name })),
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
      response: { 200: DeployPreview, ...errorResponses('unauthenticated', 'not_found', 'server_placement_required', 'secret_unreadable', 'compose_invalid', 'validation_failed', ...PLACEMENT_REFUSAL_CODES) },
      role: 'member',
      detail: {
        summary: 'Preview the plan of a deploy: one compiled runtime document per server; enqueues nothing',
        description:
          '409 `server_placement_required` without a pin or project default; the planner refuses as the deploy would ' +
          '(409 `no_eligible_server`; 422 `constraint_unsatisfiable`, `colocation_conflict`, `host_port_conflict`, ' +
          '`max_replicas_per_node_exceeded`, `turbofabric_required`).',
      },
    });
