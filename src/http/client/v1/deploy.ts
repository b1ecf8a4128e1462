/**
 * Deploy, stop and destroy an environment (spec, Deploy resolution):
 *   POST /environments/:id/deploy   {acknowledgeHealthCheckWarnings?, noCache?, ref?} -> 202 deployment
 *   POST /environments/:id/stop     -> 202 deployment (compose down; volumes kept)
 *   POST /environments/:id/destroy  -> 202 deployment (compose down --volumes; project folder removed)
 *
 * The deploy body has no server field (placement lives on the environment pin or the project
 * default; a server field is 422) and `ref` is refused with 501 source_ref_unsupported. Each
 * call commits its deployment and durable command first, then hands the command to the hub,
 * which delivers it now or when the daemon next connects. The ingress of the servers the
 * environment runs on (before and after) is refreshed in the same transaction. Platform
 * projects (the ingress) are deployed by Panel only: 403.
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Actor } from '../../../domain/actor.ts';
import { planDeploy } from '../../../domain/deploy/plan.ts';
import { commitDeploy, enqueueTeardown } from '../../../domain/deployments/service.ts';
import { serversOfEnvironment } from '../../../domain/ingress/queries.ts';
import { DomainError } from '../../../lib/errors.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses, IdParams } from '../../schemas.ts';
import { DeploymentSchema, presentDeployment } from './deployments.ts';
import { announce, writeWithIngress } from './ingress-refresh.ts';

const DeployBody = v.optional(
  v.strictObject(
    {
      /** Proceed although the plan warns about health checks. */
      acknowledgeHealthCheckWarnings: v.optional(v.boolean()),
      /** Build without the layer cache (services with `build`). */
      noCache: v.optional(v.boolean()),
      /** A source reference to deploy; not supported (501). */
      ref: v.optional(v.unknown()),
    },
    'unknown field',
  ),
);
const NoBody = v.optional(v.strictObject({}, 'unknown field'));

const DeployedSchema = v.object({ ...DeploymentSchema.entries, warnings: v.array(v.string()) });

export const deployRoutes = (deps: AppDeps) => {
  /** Stop and destroy differ only in the command kind they enqueue. */
  const teardown =
    (kind: 'stop' | 'destroy') =>
    ({ actor, params, set }: { actor: Actor; params: { id: string }; set: { status?: number | string } }) => {
      const enqueued = writeWithIngress(deps, (tx) => ({
        result: enqueueTeardown({ ...deps, db: tx }, actor, params.id, kind),
        servers: serversOfEnvironment(tx, params.id),
      }));
      announce(deps, enqueued);
      set.status = 202;
      return presentDeployment(enqueued.deployment);
    };
  return new Elysia({ prefix: '/environments', detail: { tags: ['environments'] } })
    .use(clientGuard(deps))
    .post(
      '/:id/deploy',
      ({ actor, params, body, set }) => {
        if (body?.ref !== undefined) throw new DomainError('source_ref_unsupported', 'deploying a source ref is not supported', 'ref');
        const plan = planDeploy(deps, actor, params.id, 'write');
        const enqueued = writeWithIngress(deps, (tx) => {
          const before = serversOfEnvironment(tx, params.id);
          const result = commitDeploy({ ...deps, db: tx }, plan);
          return { result, servers: [...before, ...serversOfEnvironment(tx, params.id)] };
        });
        announce(deps, enqueued);
        set.status = 202;
        return { ...presentDeployment(enqueued.deployment), warnings: [...plan.warnings] };
      },
      {
        params: IdParams,
        body: DeployBody,
        response: { 202: DeployedSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'server_placement_required', 'server_key_missing', 'secret_unreadable', 'compose_invalid', 'validation_failed', 'source_ref_unsupported') },
        detail: {
          summary: 'Deploy the environment: compile, pre-allocate containers and queue the command for its server',
          description:
            'Placement: the environment pin, else the project `defaultServerId`, else 409 `server_placement_required`. ' +
            'The environment generation rises by one. The body carries no server field.',
        },
      },
    )
    .post('/:id/stop', teardown('stop'), {
      params: IdParams,
      body: NoBody,
      response: { 202: DeploymentSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'not_deployed', 'validation_failed') },
      detail: { summary: "Stop the environment's containers on the server it was last deployed to (volumes kept)" },
    })
    .post('/:id/destroy', teardown('destroy'), {
      params: IdParams,
      body: NoBody,
      response: { 202: DeploymentSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'not_deployed', 'validation_failed') },
      detail: { summary: "Destroy the environment's containers and volumes on the server it was last deployed to" },
    });
};
