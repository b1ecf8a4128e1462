import { Database } from 'bun:sqlite';
import { chmodSync, existsSync } from 'node:fs';

/** How long the copy waits for a lock it needs; in WAL mode a reader should never have to. */
const SNAPSHOT_BUSY_TIMEOUT_MS = 5000;

/**
 * An online, consistent copy of a database file: VACUUM INTO on a read-only connection reads one
 * snapshot (WAL lets writers go on meanwhile; it takes no lock a writer waits for) and writes a
 * compact file, owner-only. Refuses to overwrite. Kept free of the rest of Panel: the backup
 * worker thread (./snapshot-worker.ts) loads only this.
 */
export function snapshotDatabase(databaseFile: string, target: string): { bytes: number } {
  if (existsSync(target)) throw new Error(`${target} already exists; refusing to overwrite it`);
  const source = new Database(databaseFile, { readonly: true });
  try {
    source.run(`PRAGMA busy_timeout = ${SNAPSHOT_BUSY_TIMEOUT_MS}`);
    source.prepare('VACUUM INTO ?').run(target);
  } finally {
    source.close();
  }
  chmodSync(target, 0o600);
  return { bytes: Bun.file(target).size };
}
