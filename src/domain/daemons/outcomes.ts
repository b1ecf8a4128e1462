/**
 * What a connected daemon's acks, reports and results change, and what expiring or undeliverable
 * commands change: the command and deployment transitions (compare-and-set, src/domain/commands)
 * in one transaction, then the notifier. The hub (src/daemon/hub.ts) only parses the frames and
 * calls these. Every function trusts only the server id the connection was resolved to, never
 * ids inside the frame.
 *
 * The hot transitions run their statements on the root `db` inside `db.transaction(...)`: bun:sqlite
 * has one connection, so they are part of the transaction, and statements prepared once per
 * database (preparedOnce) stay cached, where a fresh `tx` object per call would defeat the cache.
 */
import { composeProjectName } from '../../compose/naming.ts';
import { containersOfEnvironment } from '../../domain/deployments/queries.ts';
import type { Db } from '../../db/client.ts';
import type { Container, DaemonCommand, Deployment } from '../../db/schema/index.ts';
import { acknowledgeCommand, expireDueCommands, failUndeliverable, findCommand, finishCommand } from '../commands/service.ts';
import { findDeployment, markDeploymentRunning, serversOfEnvironment, settleDeployment } from '../deployments/queries.ts';
import { findEnvironment } from '../environments/queries.ts';
import { recordFabricResult } from '../fabric/reports.ts';
import { applyReport, type ReportTarget } from '../reports/apply.ts';
import type { Queryable } from '../shared/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { type CertificateChange, recordIngressState } from '../ingress/state.ts';
import type { IngressFrame, ReportFrame, ResultFrame } from '../../contract/daemon-protocol.ts';
import type { Notifier } from '../notify.ts';

export interface OutcomeContext {
  db: Db;
  notify: Notifier;
  logger: Logger;
  now: () => Date;
  /** Deploy outcomes and container state changes become events. */
  observe: OutcomeEvents;
}

/** What outcomes tell the events feed (src/daemon/hub/observability.ts implements it). */
export interface OutcomeEvents {
  deploymentFinished(row: Deployment): void;
  /** A report on the daemon's own account changed rows: `before` holds their earlier statuses. */
  containersChanged(environmentId: string, serverId: string, before: ReadonlyMap<string, Container['status']>, changed: readonly Container[], frame: ReportFrame): void;
  /** A certificate a server's ingress serves was issued, renewed or failed. */
  certificateChanged(change: CertificateChange): void;
}

export interface DaemonOf {
  serverId: string;
  organizationId: string;
}

/** ack: queued|delivered -> acknowledged; the deployment starts running. */
export function onAck(ctx: OutcomeContext, daemon: DaemonOf, commandId: string): void {
  const { db } = ctx;
  const deployment = db.transaction(() => {
    const command = acknowledgeCommand(db, daemon.serverId, commandId, ctx.now());
    return command?.deploymentId ? markDeploymentRunning(db, command.deploymentId) : null;
  });
  if (deployment) ctx.notify.deployment(deployment);
}

/** The deployment a command carries out, settled from its commands; fabric commands have none. */
const settleDeploymentOf = (db: Queryable, command: DaemonCommand) => (command.deploymentId === null ? null : settleDeployment(db, command.deploymentId));

/**
 * result: the command ends succeeded or failed (payload cleared); its deployment ends once all
 * of its per-server commands have (settleDeployment). A fabric command's result is the member's
 * applied hash or error.
 */
export function onResult(ctx: OutcomeContext, daemon: DaemonOf, frame: ResultFrame): void {
  const outcome = frame.ok ? { ok: true as const, data: frame.data } : { ok: false as const, error: frame.error };
  const { db } = ctx;
  const finished = db.transaction(() => {
    const command = finishCommand(db, daemon.serverId, frame.id, outcome, ctx.now());
    if (!command) return null;
    if (command.kind === 'fabric') recordFabricResult(db, command, outcome);
    return { command, deployment: settleDeploymentOf(db, command) };
  });
  if (!finished) {
    ctx.logger.debug('result for a command that is not open on this server; ignored', { serverId: daemon.serverId, commandId: frame.id });
    return;
  }
  const { command, deployment } = finished;
  ctx.logger.info('daemon command finished', { serverId: daemon.serverId, commandId: command.id, kind: command.kind, status: command.status });
  if (deployment) {
    ctx.notify.deployment(deployment);
    ctx.observe.deploymentFinished(deployment);
  }
}

const PROJECT_ENVIRONMENT = /^pn-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Which environment (and command kind) a report is about, or null when it is not this daemon's to make. */
function reportTarget(ctx: OutcomeContext, daemon: DaemonOf, frame: ReportFrame): ReportTarget | null {
  if (frame.commandId) {
    const command = findCommand(ctx.db, frame.commandId);
    if (!command || command.serverId !== daemon.serverId || command.deploymentId === null || command.kind === 'fabric') return null;
    const deployment = findDeployment(ctx.db, command.deploymentId);
    if (!deployment || composeProjectName(deployment.environmentId) !== frame.project) return null;
    return { serverId: daemon.serverId, environmentId: deployment.environmentId, kind: command.kind };
  }
  // On the daemon's own account: only for an environment of its organization that runs on it.
  const environmentId = PROJECT_ENVIRONMENT.exec(frame.project)?.[1];
  const environment = environmentId ? findEnvironment(ctx.db, environmentId) : undefined;
  if (!environment || environment.organizationId !== daemon.organizationId) return null;
  if (!serversOfEnvironment(ctx.db, environment.id).includes(daemon.serverId)) return null;
  return { serverId: daemon.serverId, environmentId: environment.id, kind: null };
}

/** report: container rows upserted per the state table (src/domain/reports/apply.ts). */
export function onReport(ctx: OutcomeContext, daemon: DaemonOf, frame: ReportFrame): void {
  const target = reportTarget(ctx, daemon, frame);
  if (!target) {
    ctx.logger.warn('report for a project this daemon has no command or environment for; ignored', {
      serverId: daemon.serverId,
      commandId: frame.commandId,
      project: frame.project,
    });
    return;
  }
  // Between deploys (no command), status changes are events: read the statuses before applying.
  const before = target.kind === null ? new Map(containersOfEnvironment(ctx.db, target.environmentId).map((row) => [row.id, row.status])) : null;
  const changed = applyReport(ctx.db, target, frame.containers);
  ctx.notify.containers(target.environmentId, changed);
  if (before) ctx.observe.containersChanged(target.environmentId, daemon.serverId, before, changed, frame);
}

/**
 * ingress: the routes and certificates of the daemon's server as its ingress serves them now,
 * upserted for hostings of the daemon's organization only. Every certificate change (issued,
 * failed, renewed, another source) passes here, once.
 */
export function onIngress(ctx: OutcomeContext, daemon: DaemonOf, frame: IngressFrame): void {
  const changes = recordIngressState(ctx.db, daemon.serverId, daemon.organizationId, frame);
  for (const { current, previous } of changes) {
    if (current.status === previous?.status && current.error === previous?.error) continue;
    const fields = { serverId: daemon.serverId, hostname: current.hostname, source: current.source, status: current.status, error: current.error ?? undefined };
    if (current.status === 'failed') ctx.logger.warn('certificate failed', fields);
    else ctx.logger.info('certificate state changed', { ...fields, notAfter: current.notAfter?.toISOString() });
  }
  for (const change of changes) ctx.observe.certificateChanged(change);
}

/** The expiry sweep: open commands past expires_at expire, and their deployments fail once nothing of them is open. */
export function expireCommands(ctx: OutcomeContext): number {
  const expired = ctx.db.transaction((tx) =>
    expireDueCommands(tx, ctx.now()).map((command) => ({ command, deployment: settleDeploymentOf(tx, command) })),
  );
  for (const { command, deployment } of expired) {
    ctx.logger.warn('daemon command expired', { serverId: command.serverId, commandId: command.id, kind: command.kind });
    if (deployment) {
      ctx.notify.deployment(deployment);
      ctx.observe.deploymentFinished(deployment);
    }
  }
  return expired.length;
}

/** A command that cannot be framed (too large): failed at once, and its deployment settles. */
export function failUndeliverableCommand(ctx: OutcomeContext, commandId: string, message: string): void {
  const deployment = ctx.db.transaction((tx) => {
    const command = failUndeliverable(tx, commandId, message, ctx.now());
    return command ? settleDeploymentOf(tx, command) : null;
  });
  if (deployment) {
    ctx.notify.deployment(deployment);
    ctx.observe.deploymentFinished(deployment);
  }
}
