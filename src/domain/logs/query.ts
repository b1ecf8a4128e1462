/**
 * Reading retained history: the lines of some services (one container, or every container of a
 * service or an environment), filtered by time range, stream and text, a page at a time.
 *
 * Lines are ordered by (at, chunk id, position in the chunk); a cursor is that key. Chunks of
 * different containers overlap in time, so a page merges them: backward pages walk chunks by
 * last_at descending and stop once no unread chunk can hold a newer line than the page's oldest;
 * forward pages walk first_at ascending. A page reads at most MAX_SCAN_BYTES of chunk bodies;
 * past that it ends early (`complete: false`) with a cursor from which the next page continues,
 * so a text search through long history costs bounded work per request.
 */
import { and, asc, desc, eq, gte, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import { logChunk } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';
import { decodeBody, type LineStream, type LogLine, streamOf } from './lines.ts';

export const MAX_SCAN_BYTES = 32 * 1024 * 1024;
const CHUNK_BATCH = 64;

export interface LogFilter {
  serviceIds: readonly string[];
  /** Only this container row. */
  containerId?: string;
  /** Epoch ms, inclusive. */
  since?: number;
  until?: number;
  stream?: LineStream;
  /** Case-insensitive substring. */
  text?: string;
}

/** A position between lines: [at, chunk id, index in chunk]. */
export type LogCursor = [number, number, number];

export interface LogPage {
  /** Oldest first. */
  lines: LogLine[];
  /** Where the next page (older for backward, newer for forward) starts; null when there is none. */
  nextCursor: LogCursor | null;
  /** False when the page stopped at the scan bound rather than at `limit` or the end. */
  complete: boolean;
}

type Keyed = LogLine & { key: LogCursor };

const compare = (a: LogCursor, b: LogCursor) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

export const encodeCursor = (cursor: LogCursor) => cursor.join('.');
export function decodeCursor(text: string): LogCursor | null {
  const parts = text.split('.').map(Number);
  return parts.length === 3 && parts.every((part) => Number.isSafeInteger(part) && part >= 0) ? (parts as LogCursor) : null;
}

/** A LIKE pattern for `text` as it appears inside a JSON body (ASCII only: LIKE folds ASCII case alone). */
function bodyPattern(text: string): string | null {
  if (!/^[\x20-\x7e]*$/.test(text)) return null;
  const escaped = JSON.stringify(text).slice(1, -1).replace(/[\\%_]/g, (c) => `\\${c}`);
  return `%${escaped}%`;
}

function chunkConditions(filter: LogFilter): SQL {
  const pattern = filter.text ? bodyPattern(filter.text) : null;
  return and(
    inArray(logChunk.serviceId, [...filter.serviceIds]),
    filter.containerId ? eq(logChunk.containerId, filter.containerId) : undefined,
    filter.since !== undefined ? gte(logChunk.lastAt, filter.since) : undefined,
    filter.until !== undefined ? lte(logChunk.firstAt, filter.until) : undefined,
    pattern ? sql`${logChunk.body} LIKE ${pattern} ESCAPE '\\'` : undefined,
  )!;
}

function matcher(filter: LogFilter) {
  const needle = filter.text?.toLowerCase();
  return (at: number, stream: LineStream, text: string) =>
    (filter.since === undefined || at >= filter.since) &&
    (filter.until === undefined || at <= filter.until) &&
    (filter.stream === undefined || stream === filter.stream || stream === 'panel') &&
    (needle === undefined || text.toLowerCase().includes(needle));
}

type ChunkRow = typeof logChunk.$inferSelect;

function linesOf(chunk: ChunkRow, matches: ReturnType<typeof matcher>, inPage: (key: LogCursor) => boolean, into: Keyed[]): void {
  decodeBody(chunk.body).forEach(([at, code, text], index) => {
    const key: LogCursor = [at, chunk.id, index];
    const stream = streamOf(code);
    if (!inPage(key) || !matches(at, stream, text)) return;
    into.push({ at, stream, text, serviceId: chunk.serviceId, containerId: chunk.containerId, ordinal: chunk.ordinal, containerName: chunk.containerName, key });
  });
}

const strip = ({ key: _key, ...line }: Keyed): LogLine => line;

/** The newest `limit` matching lines before `before` (or the newest overall), oldest first. */
export function pageBackward(db: Queryable, filter: LogFilter, limit: number, before?: LogCursor, scanBytes = MAX_SCAN_BYTES): LogPage {
  const matches = matcher(filter);
  const inPage = (key: LogCursor) => before === undefined || compare(key, before) < 0;
  const candidates: Keyed[] = [];
  let scanned = 0;
  let position: { lastAt: number; id: number } | null = null;
  for (;;) {
    const chunks = db
      .select()
      .from(logChunk)
      .where(
        and(
          chunkConditions(filter),
          before ? lte(logChunk.firstAt, before[0]) : undefined,
          position ? or(sql`${logChunk.lastAt} < ${position.lastAt}`, and(eq(logChunk.lastAt, position.lastAt), sql`${logChunk.id} < ${position.id}`)) : undefined,
        ),
      )
      .orderBy(desc(logChunk.lastAt), desc(logChunk.id))
      .limit(CHUNK_BATCH)
      .all();
    for (const chunk of chunks) {
      linesOf(chunk, matches, inPage, candidates);
      scanned += chunk.bytes;
    }
    const last = chunks.at(-1);
    if (!last) break;
    position = { lastAt: last.lastAt, id: last.id };
    candidates.sort((a, b) => compare(b.key, a.key));
    if (candidates.length > limit) candidates.length = limit;
    // Every unread chunk ends at or before position.lastAt: only a line newer than that is final.
    if (candidates.length === limit && candidates[limit - 1]!.at > position.lastAt) break;
    if (chunks.length < CHUNK_BATCH) break;
    if (scanned >= scanBytes) {
      // Lines at position.lastAt may continue in unread chunks: they all go to the next page.
      const settled = candidates.filter((line) => line.at > position!.lastAt);
      return { lines: settled.reverse().map(strip), nextCursor: [position.lastAt + 1, 0, 0], complete: false };
    }
  }
  candidates.sort((a, b) => compare(b.key, a.key));
  const lines = candidates.slice(0, limit);
  const more = lines.length === limit;
  return { lines: lines.reverse().map(strip), nextCursor: more ? lines[0]!.key : null, complete: true };
}

/** The oldest `limit` matching lines after `after` (or from the start), oldest first. */
export function pageForward(db: Queryable, filter: LogFilter, limit: number, after?: LogCursor, scanBytes = MAX_SCAN_BYTES): LogPage {
  const matches = matcher(filter);
  const inPage = (key: LogCursor) => after === undefined || compare(key, after) > 0;
  const candidates: Keyed[] = [];
  let scanned = 0;
  let position: { firstAt: number; id: number } | null = null;
  for (;;) {
    const chunks = db
      .select()
      .from(logChunk)
      .where(
        and(
          chunkConditions(filter),
          after ? gte(logChunk.lastAt, after[0]) : undefined,
          position ? or(sql`${logChunk.firstAt} > ${position.firstAt}`, and(eq(logChunk.firstAt, position.firstAt), sql`${logChunk.id} > ${position.id}`)) : undefined,
        ),
      )
      .orderBy(asc(logChunk.firstAt), asc(logChunk.id))
      .limit(CHUNK_BATCH)
      .all();
    for (const chunk of chunks) {
      linesOf(chunk, matches, inPage, candidates);
      scanned += chunk.bytes;
    }
    const last = chunks.at(-1);
    if (!last) break;
    position = { firstAt: last.firstAt, id: last.id };
    candidates.sort((a, b) => compare(a.key, b.key));
    if (candidates.length > limit) candidates.length = limit;
    if (candidates.length === limit && candidates[limit - 1]!.at < position.firstAt) break;
    if (chunks.length < CHUNK_BATCH) break;
    if (scanned >= scanBytes) {
      const settled = candidates.filter((line) => line.at < position!.firstAt);
      return { lines: settled.map(strip), nextCursor: [Math.max(0, position.firstAt - 1), Number.MAX_SAFE_INTEGER, 0], complete: false };
    }
  }
  candidates.sort((a, b) => compare(a.key, b.key));
  const lines = candidates.slice(0, limit);
  return { lines: lines.map(strip), nextCursor: lines.length === limit ? lines[limit - 1]!.key : null, complete: true };
}
