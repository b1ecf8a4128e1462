/**
 * Lists whose page, once the caller may read what is listed, depends on nothing but the rows of
 * a few tables: every caller allowed to ask gets the same page for the same query until one of
 * those tables changes. Those tables count their changes (src/db/schema/table_change.ts, raised
 * by triggers in the writing transaction), so the transport may keep the page it answered and
 * answer it again while the counters stand still (src/http/answer-cache.ts). Authorization runs
 * for every request either way.
 */
import type { Database, Statement } from 'bun:sqlite';
import type { Actor } from '../actor.ts';
import type { Queryable } from './database.ts';
import type { Page } from './pagination.ts';

/** The tables with change counters (their triggers: migrations/0017_add_table_change_triggers.sql). */
export const COUNTED_TABLES = ['workspace', 'project', 'environment', 'service'] as const;
export type CountedTable = (typeof COUNTED_TABLES)[number];

export interface CacheableList<Q, R> {
  /** Refuses (404, 403) a caller who may not list what `query` names. */
  authorize(actor: Actor, query: Q): void;
  /** The page itself: the same for every caller `authorize` lets through. */
  page(query: Q): Page<R>;
  /**
   * The change counters of the tables the page is read from, read before the page is; null
   * inside a transaction, whose writes may still be rolled back (nothing read there is kept).
   */
  changes(): string | null;
}

const counterStatements = new WeakMap<Database, Statement<{ changes: number }, [string]>>();

/** The counters of `tables` in `db`, as one comparable text (src/db/schema/table_change.ts). */
export function changesOf(db: Queryable, tables: readonly CountedTable[]): string | null {
  // A transaction's handle has no client of its own: what is read inside one is not kept.
  const sqlite = (db as { $client?: Database }).$client;
  if (!sqlite || sqlite.inTransaction) return null;
  let statement = counterStatements.get(sqlite);
  if (!statement) {
    statement = sqlite.query<{ changes: number }, [string]>('SELECT changes FROM table_change WHERE table_name = ?');
    counterStatements.set(sqlite, statement);
  }
  let changes = '';
  for (const table of tables) {
    const counter = statement.get(table);
    // A table without its counter would never look changed: then nothing is kept at all.
    if (!counter) return null;
    changes += `${table}:${counter.changes};`;
  }
  return changes;
}

/** A cacheable list over `tables`: the given authorization and read, the counters of those tables. */
export function cacheableList<Q, R>(db: Queryable, tables: readonly CountedTable[], list: Omit<CacheableList<Q, R>, 'changes'>): CacheableList<Q, R> {
  return { ...list, changes: () => changesOf(db, tables) };
}
