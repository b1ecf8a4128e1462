/**
 * Opening the SQLite database and wrapping it in drizzle.
 *
 * Dependencies are passed in (ARCHITECTURE.md §3): callers open one database, migrate it
 * (./migrate.ts) and hand `{ sqlite, db }` to the app. Nothing here is a module singleton.
 */
import { Database } from 'bun:sqlite';
import { drizzle } from 'drizzle-orm/bun-sqlite';

/** How long a writer waits for another connection's lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating if needed) a database file, or an in-memory database for ':memory:'.
 * - journal_mode=WAL (files only; in-memory databases cannot use WAL): readers never block the writer.
 * - synchronous=NORMAL: safe with WAL (a power cut may lose the last commits, never corrupt).
 * - foreign_keys=ON: SQLite enforces foreign keys per connection, off by default.
 * - busy_timeout: set first, so switching to WAL waits for a concurrent opener instead of failing.
 */
export function openDatabase(file: string | ':memory:'): Database {
  const sqlite = new Database(file, { create: true, readwrite: true });
  try {
    sqlite.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (file !== ':memory:') sqlite.run('PRAGMA journal_mode = WAL');
    sqlite.run('PRAGMA synchronous = NORMAL');
    sqlite.run('PRAGMA foreign_keys = ON');
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqlite;
}

/**
 * The drizzle instance over an open database. Its transactions
 * begin IMMEDIATE (drizzle's default is DEFERRED): they take the write lock at BEGIN, where the
 * busy timeout waits out another connection's write (`panel local-daemon reset-key`, a sqlite3
 * shell). A deferred transaction that reads first would get SQLITE_BUSY at its first write at
 * once, because SQLite never calls the busy handler to upgrade a read transaction. In one
 * process with one connection this costs nothing: its transactions are serial anyway.
 */
export function createDb(sqlite: Database) {
  // No schema: it only serves drizzle's relational queries (`db.query.*`), which Panel does not
  // use, and extracting their configuration was a twentieth of `panel serve`'s start.
  const db = drizzle({ client: sqlite });
  const transaction = db.transaction.bind(db);
  db.transaction = ((run, config) => transaction(run, { behavior: 'immediate', ...config })) as typeof db.transaction;
  return db;
}

export type Db = ReturnType<typeof createDb>;
