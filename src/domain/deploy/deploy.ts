/**
 * What a deploy, a stop and a destroy do, each in one place:
 *
 *   deploy   plan (placement and one compiled document per server; nothing written, 409/422
 *            refusals here) -> commit (generation + 1, the deployment, pending containers, one
 *            command per server and a stop for servers the plan dropped, and the ingress of the
 *            servers the environment routes through before and after, in one transaction)
 *            -> notify (subscribers hear of the rows, each server's daemon gets its command).
 *   stop,    commit (the deployment, a command for every server the environment may run on, the
 *   destroy  ingress of those servers) -> notify.
 *
 * The notifier is called only after the commit, so no one hears of a deploy that rolled back.
 */
import type { DeployRequest } from '../../contract/deployments.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import type { Db } from '../../db/client.ts';
import type { Deployment } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../actor.ts';
import { commitDeploy, type Enqueued, enqueueTeardown } from '../deployments/service.ts';
import { refreshIngress } from '../ingress/service.ts';
import { routingServersOfEnvironment } from '../ingress/queries.ts';
import { announceEnqueued, type Notifier } from '../notify.ts';
import type { Queryable } from '../shared/database.ts';
import { planDeploy } from './plan.ts';

export interface DeployContext {
  db: Db;
  keyring: KeyRing;
  clock: Clock;
  config: { ingressImage: string };
  notify: Notifier;
  commandTtlMs?: number;
}

export interface Deployed {
  deployment: Deployment;
  warnings: readonly string[];
}

export function deployEnvironment(ctx: DeployContext, actor: Actor, environmentId: string, request: DeployRequest | undefined): Deployed {
  if (request?.ref !== undefined) throw new DomainError('source_ref_unsupported', 'deploying a source ref is not supported', 'ref');
  const plan = planDeploy(ctx, actor, environmentId, 'write');
  const { result, ingress } = ctx.db.transaction((tx) => {
    const before = routingServersOfEnvironment(tx, environmentId);
    const enqueued = commitDeploy({ ...ctx, db: tx }, plan);
    return withIngress(ctx, tx, enqueued, [...before, ...routingServersOfEnvironment(tx, environmentId)]);
  });
  for (const entry of ingress) announceEnqueued(ctx.notify, entry);
  announceEnqueued(ctx.notify, result);
  return { deployment: result.deployment, warnings: plan.warnings };
}

/** Stop (`down`, volumes kept) or destroy (`down --volumes`) wherever the environment may run. */
export function teardownEnvironment(ctx: DeployContext, actor: Actor, environmentId: string, kind: 'stop' | 'destroy'): Deployment {
  const { result, ingress } = ctx.db.transaction((tx) =>
    withIngress(ctx, tx, enqueueTeardown({ ...ctx, db: tx }, actor, environmentId, kind), routingServersOfEnvironment(tx, environmentId)),
  );
  for (const entry of ingress) announceEnqueued(ctx.notify, entry);
  announceEnqueued(ctx.notify, result);
  return result.deployment;
}

/** The ingress of the servers the environment routes through, refreshed in the same transaction. */
function withIngress(ctx: DeployContext, tx: Queryable, result: Enqueued, servers: readonly string[]) {
  return { result, ingress: refreshIngress({ ...ctx, db: tx }, servers) };
}
