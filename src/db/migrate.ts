/**
 * Applies the embedded migrations at boot (ARCHITECTURE.md §2).
 *
 * - Bookkeeping lives in our own table, `__panel_migrations(tag, applied_at)`, not drizzle's.
 * - All pending migrations run in ONE transaction: either every one applies, or the database is
 *   left exactly as it was (bookkeeping table included: it is created inside the transaction).
 * - A database holding a tag this executable does not know was written by a newer Panel; we refuse
 *   it rather than run old code against a newer schema.
 *
 * Foreign keys: PRAGMA foreign_keys is a no-op inside a transaction, and table rebuilds (drizzle's
 * DROP + recreate for some ALTERs) must not fire ON DELETE CASCADE. So enforcement is switched off
 * around the transaction, and `PRAGMA foreign_key_check` runs before COMMIT instead: a migration
 * that leaves a dangling reference rolls back like any other failure.
 */
import type { Database } from 'bun:sqlite';

export interface Migration {
  readonly tag: string;
  readonly statements: readonly string[];
}

export const MIGRATIONS_TABLE = '__panel_migrations';

interface ForeignKeyViolation {
  table: string;
  rowid: number | null;
  parent: string;
}

/** Applies pending migrations; returns how many were applied (0 when up to date). */
export function migrate(sqlite: Database, migrations: readonly Migration[]): number {
  assertDistinctTags(migrations);
  if (sqlite.inTransaction) throw new Error('migrate() must not run inside an open transaction');
  // Every start finds the database up to date: then nothing needs the write lock.
  if (isUpToDate(sqlite, migrations)) return 0;

  const foreignKeysWereOn = readForeignKeysPragma(sqlite);
  if (foreignKeysWereOn) sqlite.run('PRAGMA foreign_keys = OFF');
  try {
    return sqlite.transaction(() => applyPending(sqlite, migrations)).immediate();
  } finally {
    if (foreignKeysWereOn) sqlite.run('PRAGMA foreign_keys = ON');
  }
}

/** Whether exactly these migrations, and no other, are recorded as applied. */
function isUpToDate(sqlite: Database, migrations: readonly Migration[]): boolean {
  const applied = appliedMigrationTags(sqlite);
  const known = new Set(migrations.map((migration) => migration.tag));
  return applied.length === known.size && applied.every((tag) => known.has(tag));
}

/** Tags recorded as applied, in the order they were applied. */
export function appliedMigrationTags(sqlite: Database): string[] {
  const exists = sqlite
    .query<{ name: string }, [string]>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(MIGRATIONS_TABLE);
  if (!exists) return [];
  return sqlite
    .query<{ tag: string }, []>(`SELECT tag FROM ${MIGRATIONS_TABLE} ORDER BY applied_at, rowid`)
    .all()
    .map((row) => row.tag);
}

function applyPending(sqlite: Database, migrations: readonly Migration[]): number {
  sqlite.run(
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (tag TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)`,
  );
  const applied = new Set(appliedMigrationTags(sqlite));
  const known = new Set(migrations.map((migration) => migration.tag));
  const unknown = [...applied].filter((tag) => !known.has(tag)).sort();
  if (unknown.length > 0) {
    throw new Error(
      `database was written by a newer Panel (unknown migration ${unknown.join(', ')}); refusing to start`,
    );
  }

  const pending = migrations.filter((migration) => !applied.has(migration.tag));
  const record = sqlite.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (tag, applied_at) VALUES (?, ?)`);
  for (const migration of pending) {
    for (const [index, statement] of migration.statements.entries()) {
      try {
        sqlite.run(statement);
      } catch (error) {
        throw new Error(
          `migration ${migration.tag} failed at statement ${index + 1}: ${(error as Error).message}; nothing was applied`,
          { cause: error },
        );
      }
    }
    record.run(migration.tag, Date.now());
  }
  if (pending.length > 0) assertNoForeignKeyViolations(sqlite);
  return pending.length;
}

function assertDistinctTags(migrations: readonly Migration[]): void {
  const seen = new Set<string>();
  for (const { tag } of migrations) {
    if (seen.has(tag)) throw new Error(`migration ${tag} is listed twice`);
    seen.add(tag);
  }
}

function readForeignKeysPragma(sqlite: Database): boolean {
  return sqlite.query<{ foreign_keys: number }, []>('PRAGMA foreign_keys').get()?.foreign_keys === 1;
}

function assertNoForeignKeyViolations(sqlite: Database): void {
  const violations = sqlite.query<ForeignKeyViolation, []>('PRAGMA foreign_key_check').all();
  if (violations.length === 0) return;
  const sample = violations
    .slice(0, 3)
    .map((v) => `${v.table} row ${v.rowid ?? '?'} -> ${v.parent}`)
    .join('; ');
  throw new Error(
    `migrations left ${violations.length} foreign key violation(s) (${sample}); nothing was applied`,
  );
}
