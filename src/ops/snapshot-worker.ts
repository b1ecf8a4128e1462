/**
 * The worker thread that writes a backup for the serving process (src/ops/backups.ts): VACUUM
 * INTO on its own read-only connection, so the server's event loop keeps answering while the
 * copy is written. One message in (`SnapshotRequest`), one out (`SnapshotResult`).
 */
import { snapshotDatabase } from './snapshot.ts';

export interface SnapshotRequest {
  databaseFile: string;
  target: string;
}

export type SnapshotResult = { ok: true; bytes: number } | { ok: false; message: string; code?: string };

declare const self: Worker;

self.onmessage = (event: MessageEvent<SnapshotRequest>) => {
  let result: SnapshotResult;
  try {
    result = { ok: true, ...snapshotDatabase(event.data.databaseFile, event.data.target) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    result = { ok: false, message: (error as Error).message, ...(typeof code === 'string' ? { code } : {}) };
  }
  self.postMessage(result);
};
