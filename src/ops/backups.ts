/**
 * Backups made by the serving process (POST /api/admin/v1/backups, and `panel backup` while Panel
 * serves, which asks for one over the daemon socket): a consistent copy of the database in
 * `<data dir>/backups/`, written by a worker thread with its own read-only connection
 * (./snapshot-worker.ts), so the event loop keeps serving and no write waits for it or fails
 * because of it. One backup at a time; a request arriving meanwhile waits its turn.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../lib/clock.ts';
import { DomainError } from '../lib/errors.ts';
import { isDiskFull } from '../db/errors.ts';
import type { SnapshotRequest, SnapshotResult } from './snapshot-worker.ts';

export const BACKUPS_DIR = 'backups';

export interface MadeBackup {
  /** The file name inside `<data dir>/backups/`. */
  name: string;
  file: string;
  bytes: number;
  createdAt: Date;
}

export interface BackupMaker {
  create(): Promise<MadeBackup>;
}

/** `panel-2026-11-25T15-30-00-123Z.db`: sorts by time, no characters a shell or Windows minds. */
export const backupName = (at: Date) => `panel-${at.toISOString().replace(/[:.]/g, '-')}.db`;

/**
 * The worker's entry point: beside this file when run from source; inside the executable, where
 * scripts/build.ts put it (its paths are relative to src/, the common folder of the entry points).
 */
const SNAPSHOT_WORKER = import.meta.path.startsWith('/$bunfs/') ? '/$bunfs/root/ops/snapshot-worker.ts' : new URL('./snapshot-worker.ts', import.meta.url).href;

function snapshotInWorker(request: SnapshotRequest): Promise<SnapshotResult> {
  const worker = new Worker(SNAPSHOT_WORKER);
  return new Promise<SnapshotResult>((resolve) => {
    worker.onmessage = (event: MessageEvent<SnapshotResult>) => resolve(event.data);
    worker.onerror = (event) => resolve({ ok: false, message: event.message });
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}

export function backupMaker(config: { dataDir: string; databaseFile: string }, clock: Clock): BackupMaker {
  const folder = join(config.dataDir, BACKUPS_DIR);
  let previous: Promise<unknown> = Promise.resolve();

  const make = async (): Promise<MadeBackup> => {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const createdAt = clock.now();
    const name = backupName(createdAt);
    const file = join(folder, name);
    // Written under a hidden name and renamed: the folder never shows half a backup.
    const partial = join(folder, `.${name}.partial`);
    rmSync(partial, { force: true });
    const result = await snapshotInWorker({ databaseFile: config.databaseFile, target: partial });
    if (!result.ok) {
      rmSync(partial, { force: true });
      if (isDiskFull(result)) throw new DomainError('insufficient_storage', 'the disk holding the data directory is full; no backup was written');
      throw new Error(`backup failed: ${result.message}`);
    }
    renameSync(partial, file);
    return { name, file, bytes: result.bytes, createdAt };
  };

  return {
    create() {
      const next = previous.then(make, make);
      previous = next.catch(() => undefined);
      return next;
    },
  };
}
