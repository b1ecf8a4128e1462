/** Failures of the database that callers tell apart. */

/** SQLite's SQLITE_FULL (its ENOSPC), or a file system call's ENOSPC. */
export function isDiskFull(error: unknown): boolean {
  // drizzle wraps the driver's error in its own (DrizzleQueryError, the SQLite error as `cause`).
  for (let cause = error, depth = 0; cause && depth < 4; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'SQLITE_FULL' || code === 'ENOSPC') return true;
  }
  return false;
}

/**
 * Runs a bookkeeping write (a session's slide, a token's last use) that must never keep a read
 * from being answered: on a full disk it is skipped, and the next request writes it.
 */
export function unlessDiskFull(write: () => void): void {
  try {
    write();
  } catch (error) {
    if (!isDiskFull(error)) throw error;
  }
}
