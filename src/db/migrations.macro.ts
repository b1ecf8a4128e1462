/**
 * Bun macro: embeds the SQL migrations in the bundle.
 *
 * Import it with `with { type: 'macro' }`: Bun then calls `embeddedMigrations()` at transpile or
 * bundle time (under `bun test` and `bun run` too) and inlines the returned array as a literal,
 * so a `bun build --compile` executable carries its migrations and never reads migrations/ at run
 * time. drizzle's own folder-based migrator could not do that.
 *
 * The journal (migrations/meta/_journal.json, written by drizzle-kit) gives the order; each
 * migrations/<tag>.sql is split on drizzle's statement breakpoint marker.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One migration: its journal tag and its SQL statements, in order. */
export interface EmbeddedMigration {
  tag: string;
  statements: string[];
}

interface Journal {
  entries: { idx: number; tag: string }[];
}

/** The marker drizzle-kit writes between statements (`breakpoints: true` in drizzle.config.ts). */
export const STATEMENT_BREAKPOINT = '--> statement-breakpoint';

/** The repository's migrations/ folder, relative to this file (src/db/). */
const MIGRATIONS_FOLDER = join(import.meta.dir, '..', '..', 'migrations');

/** True when a chunk holds nothing but whitespace and `--` comments. */
const isOnlyComments = (chunk: string): boolean =>
  chunk
    .split('\n')
    .map((line) => line.trim())
    .every((line) => line === '' || line.startsWith('--'));

/** Splits one migration file into statements; comment-only chunks are dropped. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(STATEMENT_BREAKPOINT)
    .map((chunk) => chunk.trim())
    .filter((chunk) => !isOnlyComments(chunk));
}

/** Reads every migration listed in the journal, in journal order. */
export function readMigrations(folder: string = MIGRATIONS_FOLDER): EmbeddedMigration[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;
  return [...journal.entries]
    .sort((a, b) => a.idx - b.idx)
    .map(({ tag }) => ({ tag, statements: splitStatements(readFileSync(join(folder, `${tag}.sql`), 'utf8')) }));
}

/** The macro entry point: the repository's migrations, read at build time. */
export function embeddedMigrations(): EmbeddedMigration[] {
  return readMigrations();
}
