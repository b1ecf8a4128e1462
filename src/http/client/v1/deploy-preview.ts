import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { ResolvedVariable } from '../../../compose/variables.ts';
import { type PreparedDeploy, prepareDeploy } from '../../../domain/deploy/plan.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { PLACEMENT_REFUSAL_CODES } from '../../../contract/errors.ts';
import { errorResponses, IdParams } from '../../schemas.ts';

const Source = v.object({ variableId: v.string(), scope: v.string(), scopeId: v.string() });

const ServerRef = v.object({ id: v.string(), name: v.string() });

const PreviewSchema = v.object({
  /** The anchor: the environment pin or the project default. */
  server: ServerRef,
  /** The `x-panel.placement.server_id` the compiler records in the anchor's runtime document. */
  placementServerId: v.string(),
  /** One block per server the plan places work on, the anchor's first (none when nothing is placed). */
  blocks: v.array(
    v.object({
      serverId: v.string(),
      serverName: v.string(),
      /** The runtime compose.yaml of that server (its `x-panel.placement.server_id` names it); secrets only as ./secrets/<name> files. */
      yaml: v.string(),
      containers: v.array(
        v.object({ serviceId: v.string(), composeServiceName: v.string(), containerName: v.string(), role: v.string(), ordinal: v.number() }),
      ),
      /** Secret files that server's daemon would receive; never their values. */
      secrets: v.array(v.object({ name: v.string(), serviceId: v.string(), key: v.string() })),
    }),
  ),
  /** Servers that ran the environment and drop out of the plan: a deploy stops the project there. */
  stops: v.array(ServerRef),
  /** Per service, where each variable comes from; secret values are null. */
  variables: v.array(
    v.object({
      serviceId: v.string(),
      composeServiceName: v.string(),
      entries: v.array(
        v.object({
          key: v.string(),
          value: v.nullable(v.string()),
          isSecret: v.boolean(),
          isLiteral: v.boolean(),
          forBuild: v.boolean(),
          forRuntime: v.boolean(),
          ...Source.entries,
          /** Rows of the same key at wider scopes that this one overrides, nearest first. */
          shadowed: v.array(Source),
        }),
      ),
    }),
  ),
  warnings: v.array(v.string()),
});

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
      response: { 200: PreviewSchema, ...errorResponses('unauthenticated', 'not_found', 'server_placement_required', 'secret_unreadable', 'compose_invalid', 'validation_failed', ...PLACEMENT_REFUSAL_CODES) },
      detail: {
        summary: 'Preview the plan of a deploy: one compiled runtime document per server; enqueues nothing',
        description:
          '409 `server_placement_required` without a pin or project default; the planner refuses as the deploy would ' +
          '(409 `no_eligible_server`; 422 `constraint_unsatisfiable`, `colocation_conflict`, `host_port_conflict`, ' +
          '`max_replicas_per_node_exceeded`, `turbofabric_required`).',
      },
    });
