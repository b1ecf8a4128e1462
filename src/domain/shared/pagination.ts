import { and, gt, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';

/** Lists are ordered by id (UUID v7, so by creation) and paged with an opaque cursor: the last id. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The WHERE clause continuing after the cursor, and the row count to fetch (one extra tells if more exist). */
export function pageWindow(idColumn: SQLiteColumn, request: PageRequest, ...conditions: (SQL | undefined)[]) {
  const limit = Math.min(Math.max(request.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const where = and(...conditions, request.cursor ? gt(idColumn, request.cursor) : undefined);
  return { where, fetch: limit + 1, limit };
}

/** Cuts the extra row off and turns it into the next cursor. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  if (rows.length <= limit) return { data: rows, nextCursor: null };
  const data = rows.slice(0, limit);
  return { data, nextCursor: data[data.length - 1]!.id };
}
