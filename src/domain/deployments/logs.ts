/**
 * Deploy logs: the output a daemon streamed while a deploy, stop or destroy ran, kept on the
 * deployment (table deployment_log). At most MAX_DEPLOYMENT_LOG_LINES lines per deployment
 * (the agent already sends only the head and the tail of a long output, with a marker of what it
 * left out); the logs of an environment's older deployments go once it has more than
 * KEPT_DEPLOYMENT_LOGS newer ones, the deployment rows themselves stay.
 */
import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { deployment, deploymentLog } from '../../db/schema/index.ts';
import type { Line } from '../../contract/daemon-protocol.ts';
import { type LineStream, omittedMarker, streamCode, streamOf } from '../logs/lines.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';

export const MAX_DEPLOYMENT_LOG_LINES = 5_000;
export const KEPT_DEPLOYMENT_LOGS = 50;

export interface DeploymentLogLine {
  seq: number;
  at: number;
  stream: LineStream;
  text: string;
}

const lastSeqStatement = (db: Queryable) =>
  db
    .select({ seq: sql<number | null>`max(${deploymentLog.seq})` })
    .from(deploymentLog)
    .where(eq(deploymentLog.deploymentId, sql.placeholder('deploymentId')))
    .prepare();

const insertStatement = (db: Queryable) =>
  db
    .insert(deploymentLog)
    .values({ deploymentId: sql.placeholder('deploymentId'), seq: sql.placeholder('seq'), at: sql.placeholder('at'), stream: sql.placeholder('stream'), text: sql.placeholder('text') })
    .prepare();

/**
 * Appends lines (after a marker when `omitted` lines were left out); answers what was stored,
 * which may be less than given once the deployment holds MAX_DEPLOYMENT_LOG_LINES.
 */
export function appendDeploymentLog(db: Queryable, deploymentId: string, lines: readonly Line[], omitted = 0, now = Date.now()): DeploymentLogLine[] {
  const stored: DeploymentLogLine[] = [];
  let seq = preparedOnce(db, lastSeqStatement).get({ deploymentId })?.seq ?? 0;
  const marker: DeploymentLogLine[] = omitted > 0 ? [{ seq: 0, at: lines[0]?.[0] ?? now, stream: 'panel', text: omittedMarker(omitted) }] : [];
  const all = [...marker, ...lines.map(([at, stream, text]) => ({ seq: 0, at, stream: stream as LineStream, text }))];
  for (const line of all) {
    if (seq >= MAX_DEPLOYMENT_LOG_LINES) break;
    seq++;
    preparedOnce(db, insertStatement).run({ deploymentId, seq, at: line.at, stream: streamCode(line.stream), text: line.text });
    stored.push({ ...line, seq });
  }
  return stored;
}

/** The deployment's log, oldest first, after `afterSeq` (to continue a read). */
export function deploymentLogOf(db: Queryable, deploymentId: string, afterSeq = 0, limit = MAX_DEPLOYMENT_LOG_LINES): DeploymentLogLine[] {
  return db
    .select()
    .from(deploymentLog)
    .where(and(eq(deploymentLog.deploymentId, deploymentId), gt(deploymentLog.seq, afterSeq)))
    .orderBy(asc(deploymentLog.seq))
    .limit(limit)
    .all()
    .map((row) => ({ seq: row.seq, at: row.at, stream: streamOf(row.stream), text: row.text }));
}

/** Removes the logs of each environment's deployments older than its newest KEPT_DEPLOYMENT_LOGS. */
export function pruneDeploymentLogs(db: Queryable): void {
  const environments = db
    .select({ environmentId: deployment.environmentId })
    .from(deployment)
    .groupBy(deployment.environmentId)
    .having(sql`count(*) > ${KEPT_DEPLOYMENT_LOGS}`)
    .all();
  for (const { environmentId } of environments) {
    const cutoff = db
      .select({ id: deployment.id })
      .from(deployment)
      .where(eq(deployment.environmentId, environmentId))
      .orderBy(desc(deployment.id))
      .limit(1)
      .offset(KEPT_DEPLOYMENT_LOGS)
      .get();
    if (!cutoff) continue;
    const older = db.select({ id: deployment.id }).from(deployment).where(and(eq(deployment.environmentId, environmentId), lt(deployment.id, cutoff.id)));
    db.delete(deploymentLog).where(inArray(deploymentLog.deploymentId, older)).run();
    db.delete(deploymentLog).where(eq(deploymentLog.deploymentId, cutoff.id)).run();
  }
}
