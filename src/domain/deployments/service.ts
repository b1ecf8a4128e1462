/**
 * Deploy, stop and destroy of an environment, as durable commands for its servers' daemons.
 *
 * Deploy: the plan (placement + one compiled runtime compose per server,
 * src/domain/deploy/plan.ts) is committed in ONE transaction: environment.generation + 1, a
 * `queued` deployment carrying that generation (its server is the anchor), every server's
 * container rows pre-allocated on that server (upserted on (service_id, role, ordinal): new rows,
 * and rows with no container on that server, become `pending` with no container id; a container
 * still there keeps its row as it is until the deploy reports), one deploy command per server
 * whose payload holds its compose.yaml, the secrets it needs re-sealed to its own daemon's key
 * (pndaemon) and its networks that span servers over the fabric, a stop command for each server
 * that drops out of the plan, and the environment's fabric subnets as the plan left them (the
 * others are freed). Only then does the caller hand the commands to the hub. The deployment ends when all its commands have (settleDeployment).
 *
 * Stop (`compose stop`: containers kept) and destroy (`compose down --volumes`) go to every server
 * the environment may still run on (its last deploy's, and those where its container rows hold a
 * container); they plan nothing, so the generation stays. Destroy frees the environment's fabric
 * subnets; stop keeps them for the next deploy.
 */
import { sql } from 'drizzle-orm';
import { container, type Container, type DaemonCommand, type Deployment, type DeploymentKind, type JsonObject, type Server } from '../../db/schema/index.ts';
import { sealForDaemon } from '../../crypto/index.ts';
import { composeProjectName } from '../../compose/naming.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict } from '../../lib/errors.ts';
import { type Access, type Actor, loadFor, inOrganization } from '../actor.ts';
import { DEFAULT_COMMAND_TTL_MS, insertCommand } from '../commands/service.ts';
import { replaceEnvironmentSubnets } from '../fabric/queries.ts';
import type { DeployPlan } from '../deploy/plan.ts';
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
  serversOfEnvironment,
  settleDeployment,
} from './queries.ts';

export interface Enqueued {
  deployment: Deployment;
  /** One per server; none when the plan places nothing anywhere and nothing ran before. */
  commands: DaemonCommand[];
  /** The pre-allocated (deploy) container rows. */
  containers: Container[];
}

export interface DeploymentContext {
  db: Queryable;
  clock: Clock;
  commandTtlMs?: number;
}

export function loadDeployment(db: Queryable, actor: Actor, id: string, access: Access = 'read'): OwnedDeployment {
  return loadFor(actor, access, 'deployment', findDeployment(db, id));
}

export function listDeployments(db: Queryable, actor: Actor, environmentId: string, page: PageRequest): Page<Deployment> {
  loadEnvironment(db, actor, environmentId);
  return listDeploymentsOf(db, environmentId, page);
}

/** The recipient of a daemon's envelopes; 409 while it has no registered key. */
function recipientOf(target: Server) {
  if (!target.publicKey || !target.daemonKeyId) {
    throw conflict(
      'server_key_missing',
      `server ${target.name} has no daemon key yet; connect its daemon (or enroll it) before deploying secrets to it`,
    );
  }
  return { serverId: target.id, daemonKeyId: target.daemonKeyId, publicKey: target.publicKey };
}

/** In an upsert's SET: the existing row's container exists, on `serverId`. */
const stillThere = (serverId: string) => sql`(${container.containerId} IS NOT NULL AND ${container.serverId} = ${serverId})`;

/** A server of the plan, re-read: it must still belong to the environment's organization. */
function serverOfPlan(db: Queryable, plan: DeployPlan, id: string): Server {
  return inOrganization(findServer(db, id), plan.environment.organizationId, 'server');
}

/**
 * Commits a deploy plan: generation, deployment, every server's pending containers and command,
 * and the stops of servers the plan dropped, atomically.
 */
export function commitDeploy(ctx: DeploymentContext, plan: DeployPlan): Enqueued {
  const { db, clock } = ctx;
  const expiresAt = new Date(clock.now().getTime() + (ctx.commandTtlMs ?? DEFAULT_COMMAND_TTL_MS));
  const project = plan.compiled.project;
  const deployPolicy = { hostAccess: plan.policy.hostAccess, platform: plan.policy.platform === true };
  // Sealed before the transaction, each server's secrets to its own daemon: no plaintext ever reaches the database.
  const documents = plan.compiled.documents.map((document) => {
    const target = serverOfPlan(db, plan, document.serverId);
    const secrets = plan.secrets.get(document.serverId) ?? [];
    const recipient = secrets.length > 0 ? recipientOf(target) : null;
    return { document, secrets: secrets.map(({ name, plaintext }) => ({ name, envelope: sealForDaemon(recipient!, plaintext) })) };
  });
  for (const dropped of plan.dropped) serverOfPlan(db, plan, dropped.id);
  return db.transaction((tx) => {
    const generation = raiseGeneration(tx, plan.environment.id);
    const deployment = insertDeployment(tx, {
      environmentId: plan.environment.id,
      serverId: plan.server.id,
      kind: 'deploy',
      desiredGeneration: generation,
      status: 'queued',
    });
    const command = (serverId: string, kind: DeploymentKind, payload: JsonObject) =>
      insertCommand(tx, { serverId, deploymentId: deployment.id, kind, payload: { deploymentId: deployment.id, project, ...payload }, expiresAt });
    const containers: Container[] = [];
    const commands: DaemonCommand[] = [];
    for (const { document, secrets } of documents) {
      const serverId = document.serverId;
      for (const planned of document.containers) {
        containers.push(
          tx
            .insert(container)
            .values({ ...planned, serverId, status: 'pending', containerId: null })
            .onConflictDoUpdate({
              target: [container.serviceId, container.role, container.ordinal],
              // A container that still exists on this server keeps its state and id until the deploy
              // reports (a queued deploy must not hide what still runs); any other row is pending.
              set: {
                serverId,
                containerName: planned.containerName,
                composeServiceName: planned.composeServiceName,
                status: sql`CASE WHEN ${stillThere(serverId)} THEN ${container.status} ELSE 'pending' END`,
                containerId: sql`CASE WHEN ${stillThere(serverId)} THEN ${container.containerId} ELSE NULL END`,
              },
            })
            .returning()
            .get(),
        );
      }
      commands.push(command(serverId, 'deploy', { compose: document.yaml, secrets, policy: deployPolicy, ...(document.fabric.length > 0 ? { fabric: document.fabric } : {}) }));
    }
    replaceEnvironmentSubnets(tx, plan.environment.organizationId, plan.environment.id, plan.compiled.subnets);
    // A server the plan no longer uses keeps no containers of it (stopped ones would be orphans).
    for (const dropped of plan.dropped) commands.push(command(dropped.id, 'stop', { remove: true }));
    // Nothing to run anywhere and nothing to stop: the deploy is done as committed.
    const settled = commands.length === 0 ? settleDeployment(tx, deployment.id) : null;
    return { deployment: settled ?? deployment, commands, containers };
  });
}

/** Stop (`down`) or destroy (`down --volumes`) on every server the environment may still run on. */
export function enqueueTeardown(
  ctx: DeploymentContext,
  actor: Actor,
  environmentId: string,
  kind: 'stop' | 'destroy',
): Enqueued {
  const { db, clock } = ctx;
  const environment = loadEnvironment(db, actor, environmentId, 'write');
  refusePlatformProject(findProject(db, environment.projectId)!);
  const serverIds = serversOfEnvironment(db, environmentId);
  if (serverIds.length === 0) throw conflict('not_deployed', `the environment was never deployed; there is nothing to ${kind}`);
  const expiresAt = new Date(clock.now().getTime() + (ctx.commandTtlMs ?? DEFAULT_COMMAND_TTL_MS));
  return db.transaction((tx) => {
    const deployment = insertDeployment(tx, {
      environmentId,
      serverId: lastDeployedServerId(tx, environmentId) ?? serverIds[0]!,
      kind,
      desiredGeneration: environment.generation,
      status: 'queued',
    });
    const commands = serverIds.map((serverId) =>
      insertCommand(tx, { serverId, deploymentId: deployment.id, kind, payload: { deploymentId: deployment.id, project: composeProjectName(environmentId) }, expiresAt }),
    );
    if (kind === 'destroy') replaceEnvironmentSubnets(tx, environment.organizationId, environmentId, []);
    return { deployment, commands, containers: [] };
  });
}
