/**
 * Deploy, stop and destroy an environment (spec, Deploy resolution):
 *   POST /environments/:id/deploy   {acknowledgeHealthCheckWarnings?, noCache?, ref?} -> 202 deployment
 *   POST /environments/:id/stop     -> 202 deployment (compose down; volumes kept)
 *   POST /environments/:id/destroy  -> 202 deployment (compose down --volumes; project folder removed)
 *
 * The deploy body has no server field (the environment pin or the project default anchors the
 * plan; a server field is 422) and `ref` is refused with 501 source_ref_unsupported. The planner
 * may refuse (409 no_eligible_server; 422 constraint_unsatisfiable, colocation_conflict,
 * host_port_conflict, max_replicas_per_node_exceeded, turbofabric_required) before anything is
 * written. Each call commits its deployment and its durable commands (one per server) first,
 * then hands them to the hub, which delivers each now or when its daemon next connects. The
 * ingress of the servers the environment runs on (before and after) is refreshed in the same
 * transaction. Platform projects (the servers' ingress) are deployed by Panel alone: 403.
 */
import { Elysia } from 'elysia';
import { IdParams } from '../../../contract/common.ts';
import { Deployed, Deployment, DeployRequest, TeardownRequest } from '../../../contract/deployments.ts';
import { PLACEMENT_REFUSAL_CODES } from '../../../contract/errors.ts';
import type { AppDeps } from '../../../deps.ts';
import type { Actor } from '../../../domain/actor.ts';
import { type DeployContext, deployEnvironment, teardownEnvironment } from '../../../domain/deploy/deploy.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses } from '../../schemas.ts';
import { presentDeployment } from './deployments.ts';

const TEARDOWN_ERRORS = ['unauthenticated', 'install_required', 'forbidden', 'not_found', 'not_deployed', 'validation_failed'] as const;

export const deployRoutes = (deps: AppDeps) => {
  const ctx: DeployContext = { ...deps, notify: deps.hub.notifier };
  /** Stop and destroy differ only in the command kind they enqueue. */
  const teardown =
    (kind: 'stop' | 'destroy') =>
    ({ actor, params, set }: { actor: Actor; params: { id: string }; set: { status?: number | string } }) => {
      set.status = 202;
      return presentDeployment(teardownEnvironment(ctx, actor, params.id, kind));
    };
  return new Elysia({ prefix: '/environments', detail: { tags: ['environments'] } })
    .use(clientGuard(deps))
    .post(
      '/:id/deploy',
      ({ actor, params, body, set }) => {
        const { deployment, warnings } = deployEnvironment(ctx, actor, params.id, body);
        set.status = 202;
        return { ...presentDeployment(deployment), warnings: [...warnings] };
      },
      {
        params: IdParams,
        body: DeployRequest,
        response: {
          202: Deployed,
          ...errorResponses(
            'unauthenticated',
            'install_required',
            'forbidden',
            'not_found',
            'server_placement_required',
            'server_key_missing',
            'secret_unreadable',
            'compose_invalid',
            'validation_failed',
            'source_ref_unsupported',
            ...PLACEMENT_REFUSAL_CODES,
          ),
        },
        role: 'admin',
        detail: {
          summary: 'Deploy the environment: plan, compile one document per server, pre-allocate containers and queue a command for each server',
          description:
            'Anchor: the environment pin, else the project `defaultServerId`, else 409 `server_placement_required`. ' +
            'Services with `deploy.replicas` or `deploy.placement.*` may be placed on other connected servers of the organization; ' +
            'the planner refuses with 409 `no_eligible_server` or 422 `constraint_unsatisfiable`, `colocation_conflict`, ' +
            '`host_port_conflict`, `max_replicas_per_node_exceeded` or `turbofabric_required`, enqueuing nothing. ' +
            'Servers that drop out of the plan get a stop. The environment generation rises by one. The body carries no server field.',
        },
      },
    )
    .post('/:id/stop', teardown('stop'), {
      params: IdParams,
      body: TeardownRequest,
      response: { 202: Deployment, ...errorResponses(...TEARDOWN_ERRORS) },
      role: 'admin',
      detail: { summary: "Stop the environment's containers on every server it runs on (volumes kept)" },
    })
    .post('/:id/destroy', teardown('destroy'), {
      params: IdParams,
      body: TeardownRequest,
      response: { 202: Deployment, ...errorResponses(...TEARDOWN_ERRORS) },
      role: 'admin',
      detail: { summary: "Destroy the environment's containers and volumes on every server it runs on" },
    });
};
