import { Database } from 'bun:sqlite';
import { chmodSync, constants, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import type { KeyRing } from '../crypto/keyring.ts';
import { createDb } from '../db/client.ts';
import { migrate, type Migration } from '../db/migrate.ts';
import { countSealedByKeyId } from '../domain/secrets/reencrypt.ts';
import { countUnopenableByKeyId } from '../domain/secrets/verify.ts';
import { readLocalDaemonCredential } from '../daemon/local-credential.ts';
import { BACKUPS_DIR } from './backups.ts';
import { damageOf, writeInstallMarker } from './database-check.ts';
import { snapshotDatabase } from './snapshot.ts';

export class OperationError extends Error {
  override name = 'OperationError';
}

/**
 * `panel backup <file>`: while Panel serves this data dir, the serving process makes the copy
 * (src/ops/backups.ts, asked over the daemon socket with the local daemon credential) and it is
 * moved to `target`; otherwise this process copies the file itself. Refuses to overwrite.
 */
export async function backupDatabase(config: Config, target: string): Promise<{ bytes: number; madeBy: 'server' | 'this process' }> {
  if (existsSync(target)) throw new OperationError(`${target} already exists; refusing to overwrite it`);
  if (await isServing(config.daemonSocket)) {
    const made = await askServerForBackup(config);
    moveFile(join(config.dataDir, BACKUPS_DIR, made.name), target);
    return { bytes: made.bytes, madeBy: 'server' };
  }
  if (!existsSync(config.databaseFile)) throw new OperationError(`no database at ${config.databaseFile}`);
  try {
    return { ...snapshotDatabase(config.databaseFile, target), madeBy: 'this process' };
  } catch (error) {
    rmSync(target, { force: true });
    throw new OperationError(`backup of ${config.databaseFile} failed: ${(error as Error).message}`);
  }
}

async function askServerForBackup(config: Config): Promise<{ name: string; bytes: number }> {
  let credential: string | null;
  try {
    credential = await readLocalDaemonCredential(config.localDaemonCredentialFile);
  } catch (error) {
    throw new OperationError(`Panel is serving, and asking it for a backup needs the local daemon credential: ${(error as Error).message}`);
  }
  if (!credential) throw new OperationError(`Panel is serving, and asking it for a backup needs the local daemon credential, but ${config.localDaemonCredentialFile} does not exist`);
  const response = await fetch('http://localhost/api/admin/v1/backups', { method: 'POST', unix: config.daemonSocket, headers: { authorization: `Bearer ${credential}` } });
  const body = (await response.json().catch(() => undefined)) as { name?: string; bytes?: number; error?: { message?: string } } | undefined;
  if (response.status !== 201 || typeof body?.name !== 'string' || typeof body.bytes !== 'number') {
    throw new OperationError(`the running Panel refused the backup (${response.status}): ${body?.error?.message ?? 'no explanation'}`);
  }
  return { name: body.name, bytes: body.bytes };
}

/** rename(2), or copy and remove when the target is on another file system. */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw new OperationError(`cannot move the backup to ${to}: ${(error as Error).message}`);
    copyFileSync(from, to, constants.COPYFILE_EXCL);
    chmodSync(to, 0o600);
    rmSync(from, { force: true });
  }
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
 * integrity-checked (a damaged backup is refused in words, src/ops/database-check.ts), migrated to this version on a scratch copy (a newer backup is refused), and
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
      const damage = damageOf(sqlite, scratch, true);
      if (damage) throw new OperationError(`${backupFile} is damaged (${damage}); it cannot be restored. Nothing was changed: try another backup`);
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
    writeInstallMarker(config.dataDir);
  } finally {
    rmSync(scratch, { force: true });
  }
  return report;
}
