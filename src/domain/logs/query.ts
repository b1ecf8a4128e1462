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

/**
 * How a walk goes: chunks ordered by last_at descending (backward) or first_at ascending
 * (forward), and `edge` the bound of every chunk not read yet (none ends after it, or starts
 * before it), which decides when a line is final.
 */
interface Walk {
  edge: (chunk: ChunkRow) => number;
  order: SQL[];
  /** Chunks that may hold lines on this side of the cursor. */
  reach: (cursor: LogCursor) => SQL;
  /** Chunks after the last one read (keyset). */
  beyond: (edge: number, id: number) => SQL;
  /** Line keys in page order (nearest the cursor first). */
  nearer: (a: LogCursor, b: LogCursor) => number;
  /** A line no unread chunk can come before. */
  settled: (at: number, edge: number) => boolean;
  /** Where the next page starts when the scan bound stopped this one at `edge`. */
  resumeAt: (edge: number) => LogCursor;
}

const BACKWARD: Walk = {
  edge: (chunk) => chunk.lastAt,
  order: [desc(logChunk.lastAt), desc(logChunk.id)],
  reach: (cursor) => lte(logChunk.firstAt, cursor[0]),
  beyond: (edge, id) => or(sql`${logChunk.lastAt} < ${edge}`, and(eq(logChunk.lastAt, edge), sql`${logChunk.id} < ${id}`))!,
  nearer: (a, b) => compare(b, a),
  settled: (at, edge) => at > edge,
  // Lines at `edge` may continue in unread chunks: they all go to the next page.
  resumeAt: (edge) => [edge + 1, 0, 0],
};

const FORWARD: Walk = {
  edge: (chunk) => chunk.firstAt,
  order: [asc(logChunk.firstAt), asc(logChunk.id)],
  reach: (cursor) => gte(logChunk.lastAt, cursor[0]),
  beyond: (edge, id) => or(sql`${logChunk.firstAt} > ${edge}`, and(eq(logChunk.firstAt, edge), sql`${logChunk.id} > ${id}`))!,
  nearer: compare,
  settled: (at, edge) => at < edge,
  resumeAt: (edge) => [Math.max(0, edge - 1), Number.MAX_SAFE_INTEGER, 0],
};

function page(db: Queryable, walk: Walk, filter: LogFilter, limit: number, cursor: LogCursor | undefined, scanBytes: number): LogPage {
  const matches = matcher(filter);
  const inPage = (key: LogCursor) => cursor === undefined || walk.nearer(cursor, key) < 0;
  const candidates: Keyed[] = [];
  // Oldest first, whichever way the walk went.
  const ordered = (lines: Keyed[]) => (walk === BACKWARD ? [...lines].reverse() : lines).map(strip);
  let scanned = 0;
  let position: { edge: number; id: number } | null = null;
  for (;;) {
    const chunks = db
      .select()
      .from(logChunk)
      .where(and(chunkConditions(filter), cursor ? walk.reach(cursor) : undefined, position ? walk.beyond(position.edge, position.id) : undefined))
      .orderBy(...walk.order)
      .limit(CHUNK_BATCH)
      .all();
    for (const chunk of chunks) {
      linesOf(chunk, matches, inPage, candidates);
      scanned += chunk.bytes;
    }
    const last = chunks.at(-1);
    if (!last) break;
    position = { edge: walk.edge(last), id: last.id };
    candidates.sort((a, b) => walk.nearer(a.key, b.key));
    if (candidates.length > limit) candidates.length = limit;
    if (candidates.length === limit && walk.settled(candidates[limit - 1]!.at, position.edge)) break;
    if (chunks.length < CHUNK_BATCH) break;
    if (scanned >= scanBytes) {
      const edge = position.edge;
      return { lines: ordered(candidates.filter((line) => walk.settled(line.at, edge))), nextCursor: walk.resumeAt(edge), complete: false };
    }
  }
  candidates.sort((a, b) => walk.nearer(a.key, b.key));
  const lines = candidates.slice(0, limit);
  return { lines: ordered(lines), nextCursor: lines.length === limit ? lines[limit - 1]!.key : null, complete: true };
}

/** The newest `limit` matching lines before `before` (or the newest overall), oldest first. */
export function pageBackward(db: Queryable, filter: LogFilter, limit: number, before?: LogCursor, scanBytes = MAX_SCAN_BYTES): LogPage {
  return page(db, BACKWARD, filter, limit, before, scanBytes);
}

/** The oldest `limit` matching lines after `after` (or from the start), oldest first. */
export function pageForward(db: Queryable, filter: LogFilter, limit: number, after?: LogCursor, scanBytes = MAX_SCAN_BYTES): LogPage {
  return page(db, FORWARD, filter, limit, after, scanBytes);
}
