/**
 * Deploy, stop and destroy of an environment, as durable commands for its server's daemon.
 *
 * Deploy: the plan (placement + compiled runtime compose, src/domain/deploy/plan.ts) is
 * committed in ONE transaction: environment.generation + 1, a `queued` deployment carrying
 * that generation, the plan's container rows pre-allocated as `pending` (upserted on
 * (service_id, role, ordinal), container_id cleared), and the command whose payload holds the
 * compiled compose.yaml and every secret re-sealed to the target daemon's key (pndaemon). Only
 * then does the caller hand the command to the hub.
 *
 * Stop and destroy go to the server the environment was last deployed to; they plan nothing,
 * so the generation stays.
 */
import { container, type Container, type DaemonCommand, type Deployment, type Server } from '../../db/schema/index.ts';
import { sealForDaemon } from '../../crypto/index.ts';
import { composeProjectName } from '../../compose/naming.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { type Access, type Actor, authorize } from '../actor.ts';
import { DEFAULT_COMMAND_TTL_MS, insertCommand } from '../commands/service.ts';
import { loadEnvironment } from '../environments/service.ts';
import { findProject } from '../projects/queries.ts';
import { refusePlatformProject } from '../projects/service.ts';
import { findServer } from '../servers/queries.ts';
import type { Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import {
  findDeployment,
  insertDeployment,
  lastDeployedServerId,
  listDeploymentsOf,
  type OwnedDeployment,
  raiseGeneration,
} from './queries.ts';

/** What the deploy planner hands over (src/domain/deploy/plan.ts). */
export interface DeployPlan {
  environment: { id: string; projectId: string; organizationId: string; generation: number };
  server: { id: string; organizationId: string; isLocal: boolean; name: string };
  compiled: {
    project: string;
    yaml: string;
    containers: readonly { serviceId: string; composeServiceName: string; containerName: string; role: Container['role']; ordinal: number }[];
  };
  /** Plaintext of each compiled secret file, by file name; sealed here to the daemon's key. */
  secrets: readonly { name: string; plaintext: string }[];
  warnings: readonly string[];
}

export interface Enqueued {
  deployment: Deployment;
  command: DaemonCommand;
  /** The pre-allocated (deploy) container rows. */
  containers: Container[];
}

export interface DeploymentContext {
  db: Queryable;
  clock: Clock;
  commandTtlMs?: number;
}

export function loadDeployment(db: Queryable, actor: Actor, id: string, access: Access = 'read'): OwnedDeployment {
  const row = findDeployment(db, id);
  if (!row) throw notFound('deployment');
  authorize(actor, row.organizationId, access, 'deployment');
  return row;
}

export function listDeployments(db: Queryable, actor: Actor, environmentId: string, page: PageRequest): Page<Deployment> {
  loadEnvironment(db, actor, environmentId);
  return listDeploymentsOf(db, environmentId, page);
}

/** The recipient of the target daemon's envelopes; 409 while it has no registered key. */
function recipientOf(target: Server) {
  if (!target.publicKey || !target.daemonKeyId) {
    throw conflict('server_key_missing', 'the target server has no daemon key yet; connect its daemon (or enroll it) before deploying secrets');
  }
  return { serverId: target.id, daemonKeyId: target.daemonKeyId, publicKey: target.publicKey };
}

/** Commits a deploy plan: generation, deployment, pending containers and the command, atomically. */
export function commitDeploy(ctx: DeploymentContext, plan: DeployPlan): Enqueued {
  const { db, clock } = ctx;
  const now = clock.now();
  const serverId = plan.server.id;
  const target = findServer(db, serverId);
  if (!target || target.organizationId !== plan.environment.organizationId) throw notFound('server');
  // Sealed before the transaction: no plaintext ever reaches the database.
  const recipient = plan.secrets.length > 0 ? recipientOf(target) : null;
  const secrets = plan.secrets.map(({ name, plaintext }) => ({ name, envelope: sealForDaemon(recipient!, plaintext) }));
  return db.transaction((tx) => {
    const generation = raiseGeneration(tx, plan.environment.id);
    const deployment = insertDeployment(tx, {
      environmentId: plan.environment.id,
      serverId,
      kind: 'deploy',
      desiredGeneration: generation,
      status: 'queued',
    });
    const containers = plan.compiled.containers.map((planned) =>
      tx
        .insert(container)
        .values({ ...planned, serverId, status: 'pending', containerId: null })
        .onConflictDoUpdate({
          target: [container.serviceId, container.role, container.ordinal],
          set: {
            serverId,
            containerName: planned.containerName,
            composeServiceName: planned.composeServiceName,
            status: 'pending',
            containerId: null,
          },
        })
        .returning()
        .get(),
    );
    const command = insertCommand(tx, {
      serverId,
      deploymentId: deployment.id,
      kind: 'deploy',
      payload: { deploymentId: deployment.id, project: plan.compiled.project, compose: plan.compiled.yaml, secrets },
      expiresAt: new Date(now.getTime() + (ctx.commandTtlMs ?? DEFAULT_COMMAND_TTL_MS)),
    });
    return { deployment, command, containers };
  });
}

/** Stop (`down`) or destroy (`down --volumes`) on the server the environment was last deployed to. */
export function enqueueTeardown(
  ctx: DeploymentContext,
  actor: Actor,
  environmentId: string,
  kind: 'stop' | 'destroy',
): Enqueued {
  const { db, clock } = ctx;
  const environment = loadEnvironment(db, actor, environmentId, 'write');
  refusePlatformProject(findProject(db, environment.projectId)!);
  const serverId = lastDeployedServerId(db, environmentId);
  if (!serverId) throw conflict('not_deployed', `the environment was never deployed; there is nothing to ${kind}`);
  const now = clock.now();
  return db.transaction((tx) => {
    const deployment = insertDeployment(tx, {
      environmentId,
      serverId,
      kind,
      desiredGeneration: environment.generation,
      status: 'queued',
    });
    const command = insertCommand(tx, {
      serverId,
      deploymentId: deployment.id,
      kind,
      payload: { deploymentId: deployment.id, project: composeProjectName(environmentId) },
      expiresAt: new Date(now.getTime() + (ctx.commandTtlMs ?? DEFAULT_COMMAND_TTL_MS)),
    });
    return { deployment, command, containers: [] };
  });
}
