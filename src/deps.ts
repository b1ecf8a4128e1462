/**
 * What one server instance is built from (src/app.ts): passed in, never a module singleton, so
 * each test builds its own. Its own module so that routes can name it without importing the app
 * that mounts them.
 */
import type { Database } from 'bun:sqlite';
import type { Config } from './config.ts';
import type { KeyRing } from './crypto/keyring.ts';
import type { DaemonHub, Listener } from './daemon/hub.ts';
import type { Db } from './db/client.ts';
import type { SupervisedStatus } from './domain/servers/this-machine.ts';
import type { Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import type { BackupMaker } from './ops/backups.ts';
import type { DiskFullMonitor } from './ops/disk-full.ts';
import type { SelfExecutable } from './ops/executable.ts';

/** Everything the server needs, passed in: tests build their own, nothing is a module singleton. */
export interface AppDeps {
  config: Config;
  sqlite: Database;
  db: Db;
  keyring: KeyRing;
  clock: Clock;
  logger: Logger;
  /** The one daemon hub of the process, shared by every app instance (src/daemon/hub.ts). */
  hub: DaemonHub;
  /** The local daemon `panel serve` supervises (PANEL_LOCAL_DAEMON=auto); absent when something else runs it. */
  localDaemon?: { status(): SupervisedStatus };
  /** This executable, for joining servers to download; absent where none can be had (tests). */
  executable?: SelfExecutable;
  /** Which listener this instance serves: the unix socket is the local daemon slot. Default tcp. */
  listener?: Listener;
  /** Shared by both listeners of `panel serve`; each app makes its own when not given (tests). */
  diskFull?: DiskFullMonitor;
  backups?: BackupMaker;
}

/** AppDeps with the operational parts filled in (buildApp does). */
export type ServingDeps = AppDeps & Required<Pick<AppDeps, 'diskFull' | 'backups'>>;
