/**
 * Writing retained log history and keeping it within its bounds. Each organization has a size
 * bound (bytes of chunk bodies) and an age bound (days), its own setting or the operator's
 * default (PANEL_LOG_RETENTION_BYTES, PANEL_LOG_RETENTION_DAYS), never above the operator's. The
 * oldest chunks by time go first (their newest line; arrival breaks ties), whole chunks at a time:
 * the retained total never exceeds the bound after a prune, and never by more than one flush
 * before it.
 */
import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { logChunk, organization } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { encodeBody, type LineSource, type StoredLine } from './lines.ts';

export interface RetentionLimits {
  /** Operator default and ceiling of every organization's size bound, in bytes. */
  bytes: number;
  /** Operator default and ceiling of every organization's age bound, in days. */
  days: number;
}

const DAY_MS = 86_400_000;
const PRUNE_BATCH = 500;

export interface NewChunk extends LineSource {
  organizationId: string;
  lines: readonly StoredLine[];
}

const insertStatement = (db: Queryable) =>
  db
    .insert(logChunk)
    .values({
      organizationId: sql.placeholder('organizationId'),
      serviceId: sql.placeholder('serviceId'),
      containerId: sql.placeholder('containerId'),
      ordinal: sql.placeholder('ordinal'),
      containerName: sql.placeholder('containerName'),
      firstAt: sql.placeholder('firstAt'),
      lastAt: sql.placeholder('lastAt'),
      lineCount: sql.placeholder('lineCount'),
      bytes: sql.placeholder('bytes'),
      body: sql.placeholder('body'),
    })
    .prepare();

/** Writes one chunk (its lines oldest first); answers its size in bytes. */
export function insertChunk(db: Queryable, chunk: NewChunk): number {
  const body = encodeBody(chunk.lines);
  const bytes = Buffer.byteLength(body);
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = 0;
  for (const [at] of chunk.lines) {
    if (at < firstAt) firstAt = at;
    if (at > lastAt) lastAt = at;
  }
  preparedOnce(db, insertStatement).run({
    organizationId: chunk.organizationId,
    serviceId: chunk.serviceId,
    containerId: chunk.containerId,
    ordinal: chunk.ordinal,
    containerName: chunk.containerName,
    firstAt,
    lastAt,
    lineCount: chunk.lines.length,
    bytes,
    body,
  });
  return bytes;
}

/** Bytes of history the organization holds now. */
export function retainedBytes(db: Queryable, organizationId: string): number {
  return db.select({ total: sql<number>`coalesce(sum(${logChunk.bytes}), 0)` }).from(logChunk).where(eq(logChunk.organizationId, organizationId)).get()!.total;
}

/** The organization's bounds: its own settings, capped by the operator's. */
export function retentionOf(db: Queryable, organizationId: string, limits: RetentionLimits): { bytes: number; ageMs: number } {
  const row = db
    .select({ bytes: organization.logRetentionBytes, days: organization.logRetentionDays })
    .from(organization)
    .where(eq(organization.id, organizationId))
    .get();
  const bytes = Math.min(row?.bytes ?? limits.bytes, limits.bytes);
  const days = Math.min(row?.days ?? limits.days, limits.days);
  return { bytes, ageMs: days * DAY_MS };
}

/**
 * Deletes the organization's chunks that ended before `notBefore` (epoch ms), then its oldest
 * until at most `maxBytes` remain. Oldest means by time (a chunk's newest line, then arrival),
 * not by arrival alone: a daemon catching up after a disconnect delivers old lines late, and
 * those are what the bounds drop first. Answers the bytes freed.
 */
export function pruneOrganization(db: Queryable, organizationId: string, currentBytes: number, maxBytes: number, notBefore: number): number {
  const ofOrganization = eq(logChunk.organizationId, organizationId);
  let freed = 0;
  for (const chunk of db.delete(logChunk).where(and(ofOrganization, lt(logChunk.lastAt, notBefore))).returning({ bytes: logChunk.bytes }).all()) freed += chunk.bytes;
  let remaining = currentBytes - freed;
  while (remaining > maxBytes) {
    const oldest = db
      .select({ id: logChunk.id, bytes: logChunk.bytes })
      .from(logChunk)
      .where(ofOrganization)
      .orderBy(asc(logChunk.lastAt), asc(logChunk.id))
      .limit(PRUNE_BATCH)
      .all();
    if (oldest.length === 0) break;
    const doomed: number[] = [];
    for (const chunk of oldest) {
      if (remaining <= maxBytes) break;
      doomed.push(chunk.id);
      remaining -= chunk.bytes;
      freed += chunk.bytes;
    }
    db.delete(logChunk).where(inArray(logChunk.id, doomed)).run();
  }
  return freed;
}

/** Organizations holding any history (for the age sweep). */
export function organizationsWithLogs(db: Queryable): string[] {
  return db.selectDistinct({ id: logChunk.organizationId }).from(logChunk).all().map((row) => row.id);
}
