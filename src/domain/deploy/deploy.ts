/**
 * What a deploy, a stop and a destroy do, each in one place:
 *
 *   deploy   plan (placement and one compiled document per server; nothing written, 409/422
 *            refusals here) -> commit (generation + 1, the deployment, pending containers, one
 *            command per server and a stop for servers the plan dropped, in one transaction)
 *            -> notify (subscribers hear of the rows, each server's daemon gets its command).
 *   stop,    commit (the deployment and a command for every server the environment may run on)
 *   destroy  -> notify.
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
import type { Notifier } from '../notify.ts';
import { planDeploy } from './plan.ts';

export interface DeployContext {
  db: Db;
  keyring: KeyRing;
  clock: Clock;
  notify: Notifier;
  commandTtlMs?: number;
}

export interface Deployed {
  deployment: Deployment;
  warnings: readonly string[];
}

/** Subscribers hear of the new rows; every server with a new command gets it now if connected. */
function announce(notify: Notifier, enqueued: Enqueued): void {
  notify.deployment(enqueued.deployment);
  notify.containers(enqueued.deployment.environmentId, enqueued.containers);
  for (const serverId of new Set(enqueued.commands.map((command) => command.serverId))) notify.dispatch(serverId);
}

export function deployEnvironment(ctx: DeployContext, actor: Actor, environmentId: string, request: DeployRequest | undefined): Deployed {
  if (request?.ref !== undefined) throw new DomainError('source_ref_unsupported', 'deploying a source ref is not supported', 'ref');
  const plan = planDeploy(ctx, actor, environmentId, 'write');
  const enqueued = commitDeploy(ctx, plan);
  announce(ctx.notify, enqueued);
  return { deployment: enqueued.deployment, warnings: plan.warnings };
}

/** Stop (`down`, volumes kept) or destroy (`down --volumes`) wherever the environment may run. */
export function teardownEnvironment(ctx: DeployContext, actor: Actor, environmentId: string, kind: 'stop' | 'destroy'): Deployment {
  const enqueued = enqueueTeardown(ctx, actor, environmentId, kind);
  announce(ctx.notify, enqueued);
  return enqueued.deployment;
}
