/**
 * A full disk under the data directory. SQLite refuses the write (SQLITE_FULL) and rolls the
 * transaction back, so nothing acknowledged is lost; what Panel adds is saying so:
 *
 * - the request gets 507 `insufficient_storage` instead of an anonymous 500;
 * - readiness is false while the disk is full (GET /api/health/ready says `disk_full`);
 * - the log gets one line per interval with the number of refused writes, not a stack trace
 *   per request (a full disk would otherwise fill the journal as fast as clients retry);
 * - recovery needs nobody: every write tries again, and readiness checks for space with a small
 *   real write (free-space figures lie for root on ext4's reserved blocks), then says it is back.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../lib/logger.ts';

const LOG_INTERVAL_MS = 60_000;
/** The space probe writes this much and removes it: room for a few WAL frames at least. */
const PROBE_BYTES = 64 * 1024;

export interface DiskFullMonitor {
  /** A write was refused for lack of space. Logs at most once per interval. */
  refused(): void;
  /** Whether writes are being refused; while they are, checks with a small real write whether space is back. */
  isFull(): boolean;
}

export function diskFullMonitor(dataDir: string, logger: Logger, now: () => number = Date.now): DiskFullMonitor {
  let fullSince: number | undefined;
  let lastLoggedAt = -Infinity;
  let refusedSinceLog = 0;

  const spaceIsBack = (): boolean => {
    const probe = join(dataDir, '.space-probe');
    try {
      const fd = openSync(probe, 'w', 0o600);
      try {
        writeSync(fd, Buffer.alloc(PROBE_BYTES));
      } finally {
        closeSync(fd);
      }
      return true;
    } catch {
      return false;
    } finally {
      rmSync(probe, { force: true });
    }
  };

  return {
    refused() {
      refusedSinceLog += 1;
      fullSince ??= now();
      if (now() - lastLoggedAt < LOG_INTERVAL_MS) return;
      logger.error('the disk holding the data directory is full: writes are refused (507) until space is freed', {
        dataDir,
        refusedWrites: refusedSinceLog,
        fullSince: new Date(fullSince).toISOString(),
      });
      lastLoggedAt = now();
      refusedSinceLog = 0;
    },
    isFull() {
      if (fullSince === undefined) return false;
      if (!spaceIsBack()) return true;
      logger.warn('the data directory has space again: writes are accepted', { dataDir, refusedWritesSinceLastLog: refusedSinceLog, fullSince: new Date(fullSince).toISOString() });
      fullSince = undefined;
      lastLoggedAt = -Infinity;
      refusedSinceLog = 0;
      return false;
    },
  };
}
