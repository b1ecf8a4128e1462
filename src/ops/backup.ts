import { Database } from 'bun:sqlite';
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import type { KeyRing } from '../crypto/keyring.ts';
import { createDb } from '../db/client.ts';
import { migrate, type Migration } from '../db/migrate.ts';
import { countSealedByKeyId } from '../domain/secrets/reencrypt.ts';
import { countUnopenableByKeyId } from '../domain/secrets/verify.ts';

export class OperationError extends Error {
  override name = 'OperationError';
}

/**
 * An online, consistent copy of the database: VACUUM INTO reads one snapshot (WAL lets the
 * server keep writing meanwhile) and writes a compact file. Refuses to overwrite.
 */
export function backupDatabase(databaseFile: string, target: string): { bytes: number } {
  if (!existsSync(databaseFile)) throw new OperationError(`no database at ${databaseFile}`);
  if (existsSync(target)) throw new OperationError(`${target} already exists; refusing to overwrite it`);
  const source = new Database(databaseFile, { readonly: true });
  try {
    source.run('PRAGMA busy_timeout = 5000');
    source.prepare('VACUUM INTO ?').run(target);
  } finally {
    source.close();
  }
  chmodSync(target, 0o600);
  return { bytes: Bun.file(target).size };
}

/** True when a process answers on the daemon socket: Panel is serving this data dir. */
export function isServing(socketPath: string): Promise<boolean> {
  if (!existsSync(socketPath)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const probe = connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

export interface RestoreReport {
  /** Secrets per key id in the restored database. */
  sealed: Record<string, number>;
  /** Per key id, secrets the current PANEL_SECRETS cannot open (empty when all open). */
  unopenable: Record<string, number>;
}

/**
 * Replaces the data dir's database with a backup, after checking it: refused while Panel serves,
 * integrity-checked, migrated to this version on a scratch copy (a newer backup is refused), and
 * the key ring is checked against the secrets it holds. The swap is a rename: all or nothing.
 */
export async function restoreDatabase(config: Config, ring: KeyRing, backupFile: string, migrations: readonly Migration[]): Promise<RestoreReport> {
  if (await isServing(config.daemonSocket)) throw new OperationError('Panel is serving this data dir; stop it before restoring');
  if (!existsSync(backupFile)) throw new OperationError(`no backup at ${backupFile}`);

  mkdirSync(dirname(config.databaseFile), { recursive: true, mode: 0o700 });
  const scratch = join(dirname(config.databaseFile), `.restore-${process.pid}.db`);
  rmSync(scratch, { force: true });
  copyFileSync(backupFile, scratch);
  chmodSync(scratch, 0o600);
  let report: RestoreReport;
  try {
    const sqlite = new Database(scratch);
    try {
      const integrity = sqlite.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all();
      if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') {
        throw new OperationError(`${backupFile} failed the integrity check: ${integrity.map((row) => row.integrity_check).slice(0, 3).join('; ')}`);
      }
      sqlite.run('PRAGMA foreign_keys = ON');
      try {
        migrate(sqlite, migrations);
      } catch (error) {
        throw new OperationError(`${backupFile} cannot be used: ${(error as Error).message}`);
      }
      const db = createDb(sqlite);
      report = { sealed: countSealedByKeyId(db), unopenable: countUnopenableByKeyId(db, ring) };
    } finally {
      sqlite.close();
    }
    for (const suffix of ['-wal', '-shm']) rmSync(`${config.databaseFile}${suffix}`, { force: true });
    renameSync(scratch, config.databaseFile);
  } finally {
    rmSync(scratch, { force: true });
  }
  return report;
}
