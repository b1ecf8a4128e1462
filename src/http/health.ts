/**
 * Health probes, unversioned and unauthenticated (they reveal states, never paths or errors):
 *
 *   GET /api/health        liveness: 200 while the database answers a read, 503 otherwise
 *   GET /api/health/ready  readiness: the database takes its write lock, its disk has room (no
 *                          write was refused for space since the last check found some) AND the
 *                          daemon slot's unix socket accepts connections -> 200, otherwise 503;
 *                          each part reported
 *
 * The readiness body also says whether the local daemon is connected (the hub holds a connection
 * for the local server record); that is informative only: Panel serves without a local daemon.
 */
import type { Database } from 'bun:sqlite';
import { Elysia } from 'elysia';
import { findLocalServer } from '../domain/daemons/connections.ts';
import type { Db } from '../db/client.ts';
import { PANEL_VERSION } from '../version.ts';
import { Health, Readiness } from '../contract/operations.ts';

export interface HealthDeps {
  sqlite: Database;
  config: { daemonSocket: string };
  db?: Db;
  /** The daemon hub: with `db`, tells whether the local daemon is connected. */
  hub?: { isConnected(serverId: string): boolean };
  /** Overrides the hub lookup (tests); without either, the local daemon is reported `unknown`. */
  localDaemonConnected?: () => boolean;
  /** Whether writes are being refused for lack of disk space (src/ops/disk-full.ts). */
  diskFull?: { isFull(): boolean };
}

function localDaemonProbe(deps: HealthDeps): (() => boolean) | undefined {
  if (deps.localDaemonConnected) return deps.localDaemonConnected;
  const { hub, db } = deps;
  if (!hub || !db) return undefined;
  return () => {
    const local = findLocalServer(db);
    return local !== undefined && hub.isConnected(local.id);
  };
}

export type DatabaseState = { status: 'ok' } | { status: 'busy' | 'unavailable' | 'disk_full'; code?: string };
export type DaemonSlotState = { status: 'listening' | 'down'; localDaemon: 'connected' | 'disconnected' | 'unknown' };

/** The checks behind readiness, injectable so tests can fail one at a time. */
export interface ReadinessProbes {
  database(): DatabaseState;
  socketListening(): Promise<boolean>;
}

/** How long the write-lock probe waits for another connection's lock; the server's own writes never hold it across a request. */
const LOCK_PROBE_BUSY_MS = 250;
const SOCKET_PROBE_TIMEOUT_MS = 1000;

/**
 * Write-capable check that leaves nothing behind: BEGIN IMMEDIATE takes SQLite's write lock (a
 * lock held by another process answers "busy"), rewriting the header's user_version with its own
 * value is a write (a read-only file or connection answers SQLITE_READONLY), and ROLLBACK drops
 * it before anything reaches the disk. The busy timeout is shortened for the probe, so a stuck
 * writer elsewhere answers quickly instead of blocking the event loop for the usual 5 s.
 */
export function probeDatabase(sqlite: Database): DatabaseState {
  try {
    // A transaction already open on this connection is writing: the lock is evidently held by us.
    if (sqlite.inTransaction) return { status: 'ok' };
    const previous = sqlite.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()?.timeout ?? 0;
    sqlite.run(`PRAGMA busy_timeout = ${LOCK_PROBE_BUSY_MS}`);
    try {
      sqlite.run('BEGIN IMMEDIATE');
      const version = sqlite.query<{ user_version: number }, []>('PRAGMA user_version').get()?.user_version ?? 0;
      sqlite.run(`PRAGMA user_version = ${Math.trunc(version)}`);
    } finally {
      if (sqlite.inTransaction) sqlite.run('ROLLBACK');
      sqlite.run(`PRAGMA busy_timeout = ${Math.trunc(previous)}`);
    }
    return { status: 'ok' };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const known = typeof code === 'string' && /^SQLITE_[A-Z_]+$/.test(code) ? code : undefined;
    return { status: known?.startsWith('SQLITE_BUSY') ? 'busy' : 'unavailable', ...(known ? { code: known } : {}) };
  }
}

/**
 * True when something accepts connections on the unix socket (bounded by a timeout). Bun's own
 * socket rather than node:net's, whose stream machinery loads at the first probe and stays.
 */
export async function probeSocket(path: string, timeoutMs = SOCKET_PROBE_TIMEOUT_MS): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const connected = Bun.connect({ unix: path, socket: { open: (socket) => void socket.end(), data() {} } }).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([connected, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes = (deps: HealthDeps, probes: Partial<ReadinessProbes> = {}) => {
  // The lock probe writes nothing to disk, so a full disk is known from the writes it refused.
  const database = probes.database ?? ((): DatabaseState => (deps.diskFull?.isFull() ? { status: 'disk_full', code: 'SQLITE_FULL' } : probeDatabase(deps.sqlite)));
  const socketListening = probes.socketListening ?? (() => probeSocket(deps.config.daemonSocket));
  const localDaemonConnected = localDaemonProbe(deps);
  return new Elysia({ name: 'health' })
    .get(
      '/api/health',
      ({ set }) => {
        try {
          deps.sqlite.query('select 1').get();
          return { status: 'ok' as const, version: PANEL_VERSION };
        } catch {
          set.status = 503;
          return { status: 'unavailable' as const, version: PANEL_VERSION };
        }
      },
      { response: { 200: Health, 503: Health }, detail: { summary: 'Liveness probe', tags: ['meta'] } },
    )
    .get(
      '/api/health/ready',
      async ({ set }) => {
        const databaseState = database();
        const listening = await socketListening();
        let localDaemon: DaemonSlotState['localDaemon'] = 'unknown';
        try {
          if (localDaemonConnected) localDaemon = localDaemonConnected() ? 'connected' : 'disconnected';
        } catch {
          // The database is down: already reported above; the daemon's state is unknown then.
        }
        const ready = databaseState.status === 'ok' && listening;
        if (!ready) set.status = 503;
        return {
          status: ready ? ('ready' as const) : ('not_ready' as const),
          version: PANEL_VERSION,
          database: databaseState,
          daemonSlot: { status: listening ? ('listening' as const) : ('down' as const), localDaemon },
        };
      },
      {
        response: { 200: Readiness, 503: Readiness },
        detail: {
          summary: 'Readiness probe',
          description:
            '200 when the database takes its write lock, its disk has room (`disk_full` while writes are refused for lack of space) and the local daemon slot (unix socket) accepts connections; 503 otherwise. ' +
            'Each part is reported separately. Whether the local daemon is connected is reported but does not gate readiness.',
          tags: ['meta'],
        },
      },
    );
};
