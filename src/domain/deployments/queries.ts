import { and, asc, desc, eq, getTableColumns, inArray, isNotNull, or, sql } from 'drizzle-orm';
import {
  type Container,
  container,
  daemonCommand,
  type Deployment,
  deployment,
  type DeploymentStatus,
  environment,
  server,
  service,
  terminalCommandStatuses,
} from '../../db/schema/index.ts';
import { organizationOfEnvironment } from '../environments/queries.ts';
import { param } from '../commands/prepared.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export type OwnedDeployment = Deployment & { organizationId: string };

const findDeploymentStatement = (db: Queryable) =>
  db
    .select({ ...getTableColumns(deployment), organizationId: organizationOfEnvironment(deployment.environmentId) })
    .from(deployment)
    .where(eq(deployment.id, sql.placeholder('id')))
    .prepare();

/** The deployment with the organization of its environment (the tenancy check needs it). */
export function findDeployment(db: Queryable, id: string): OwnedDeployment | undefined {
  return preparedOnce(db, findDeploymentStatement).get({ id });
}

export function listDeploymentsOf(db: Queryable, environmentId: string, page: PageRequest): Page<Deployment> {
  const { where, fetch, limit } = pageWindow(deployment.id, page, eq(deployment.environmentId, environmentId));
  return toPage(db.select().from(deployment).where(where).orderBy(deployment.id).limit(fetch).all(), limit);
}

/** The server the environment was last deployed to (stop and destroy go there), or null. */
export function lastDeployedServerId(db: Queryable, environmentId: string): string | null {
  const row = db
    .select({ serverId: deployment.serverId })
    .from(deployment)
    .where(and(eq(deployment.environmentId, environmentId), eq(deployment.kind, 'deploy'), isNotNull(deployment.serverId)))
    .orderBy(desc(deployment.id))
    .limit(1)
    .get();
  return row?.serverId ?? null;
}

/** The servers the environment's newest deploy sent its documents to (deploy commands), oldest first. */
export function serversOfLastDeploy(db: Queryable, environmentId: string): string[] {
  const last = db
    .select({ id: deployment.id })
    .from(deployment)
    .where(and(eq(deployment.environmentId, environmentId), eq(deployment.kind, 'deploy')))
    .orderBy(desc(deployment.id))
    .limit(1)
    .get();
  if (!last) return [];
  const rows = db
    .selectDistinct({ serverId: daemonCommand.serverId })
    .from(daemonCommand)
    .where(and(eq(daemonCommand.deploymentId, last.id), eq(daemonCommand.kind, 'deploy')))
    .orderBy(asc(daemonCommand.serverId))
    .all();
  return rows.map((row) => row.serverId);
}

/**
 * Every server the environment may still run something on: those of its newest deploy, and those
 * where one of its container rows holds a container or waits for one (a stop that never ran,
 * a replica the plan dropped). Stop and destroy go to all of them; a deploy stops those it no
 * longer uses.
 */
export function serversOfEnvironment(db: Queryable, environmentId: string): string[] {
  const services = db.select({ id: service.id }).from(service).where(eq(service.environmentId, environmentId));
  const live = db
    .selectDistinct({ serverId: container.serverId })
    .from(container)
    .where(and(inArray(container.serviceId, services), or(isNotNull(container.containerId), eq(container.status, 'pending'))))
    .all();
  return [...new Set([...serversOfLastDeploy(db, environmentId), ...live.map((row) => row.serverId)])];
}

/** Room for several servers' command errors (each is capped at 4200 characters). */
const MAX_ERROR_LENGTH = 16_000;

/**
 * A deployment's outcome from its per-server commands, once all of them have ended: succeeded
 * when every one did, else failed with each failing server named. Null while one is still open
 * (or when the deployment had already ended).
 */
export function settleDeployment(db: Queryable, deploymentId: string): Deployment | null {
  const commands = db
    .select({ status: daemonCommand.status, kind: daemonCommand.kind, error: daemonCommand.error, serverId: daemonCommand.serverId, serverName: server.name })
    .from(daemonCommand)
    .leftJoin(server, eq(server.id, daemonCommand.serverId))
    .where(eq(daemonCommand.deploymentId, deploymentId))
    .orderBy(asc(daemonCommand.id))
    .all();
  const terminal: readonly string[] = terminalCommandStatuses;
  if (commands.some((command) => !terminal.includes(command.status))) return null;
  const failed = commands.filter((command) => command.status !== 'succeeded');
  if (failed.length === 0) return finishDeployment(db, deploymentId, true, null);
  // One server: its own error, as before. Several: which of them failed, and how.
  if (commands.length === 1) return finishDeployment(db, deploymentId, false, failed[0]!.error ?? failed[0]!.status);
  const each = failed.map((command) => `${command.serverName ?? 'a deleted server'} (${command.serverId}) ${command.kind}: ${command.error ?? command.status}`);
  return finishDeployment(db, deploymentId, false, `${failed.length} of ${commands.length} servers failed: ${each.join('; ')}`.slice(0, MAX_ERROR_LENGTH));
}

/** environment.generation + 1, answered: once per deploy plan. */
export function raiseGeneration(db: Queryable, environmentId: string): number {
  const row = db
    .update(environment)
    .set({ generation: sql`${environment.generation} + 1` })
    .where(eq(environment.id, environmentId))
    .returning({ generation: environment.generation })
    .get();
  return row!.generation;
}

export function insertDeployment(db: Queryable, values: typeof deployment.$inferInsert): Deployment {
  return db.insert(deployment).values(values).returning().get();
}

/**
 * Compare-and-set on the status, prepared once per database and transition (the hub runs these
 * for every ack and result); updated_at is a placeholder so the prepared statement keeps time.
 */
const moveStatement = (from: DeploymentStatus[], to: DeploymentStatus) => (db: Queryable) =>
  db
    .update(deployment)
    .set({ status: to, error: param('error'), updatedAt: param('now') })
    .where(and(eq(deployment.id, sql.placeholder('id')), inArray(deployment.status, from)))
    .returning()
    .prepare();
const toRunning = moveStatement(['queued'], 'running');
const toSucceeded = moveStatement(['queued', 'running'], 'succeeded');
const toFailed = moveStatement(['queued', 'running'], 'failed');

/** queued -> running (the daemon acknowledged the command); the row when it changed, else null. */
export const markDeploymentRunning = (db: Queryable, id: string): Deployment | null =>
  preparedOnce(db, toRunning).get({ id, error: null, now: Date.now() }) ?? null;

/** queued|running -> succeeded | failed with the daemon's error; the row when it changed, else null. */
const finishDeployment = (db: Queryable, id: string, ok: boolean, error: string | null): Deployment | null =>
  preparedOnce(db, ok ? toSucceeded : toFailed).get({ id, error: ok ? null : error, now: Date.now() }) ?? null;

/** Every container row of the environment's services (a subscriber's first snapshot). */
export function containersOfEnvironment(db: Queryable, environmentId: string): Container[] {
  const services = db.select({ id: service.id }).from(service).where(eq(service.environmentId, environmentId));
  return db.select().from(container).where(inArray(container.serviceId, services)).orderBy(container.id).all();
}

/** The newest deployments of the environment, newest first. */
export function latestDeploymentsOf(db: Queryable, environmentId: string, limit: number): Deployment[] {
  return db.select().from(deployment).where(eq(deployment.environmentId, environmentId)).orderBy(desc(deployment.id)).limit(limit).all();
}
