import type { Database } from 'bun:sqlite';
import { chmodSync, existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildApp } from './app.ts';
import type { AppDeps } from './deps.ts';
import type { Config } from './config.ts';
import { type KeyRing, parseKeyRing } from './crypto/keyring.ts';
import { createDb, openDatabase } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { DaemonHub } from './daemon/hub.ts';
import { PASSED_ENVIRONMENT } from './daemon/agent/docker-cli.ts';
import { LocalDaemonSupervisor } from './daemon/local-supervisor.ts';
import { observabilityOptionsOf } from './daemon/hub/observability.ts';
import { ensureLocalDaemonCredential } from './daemon/local-credential.ts';
import { MIGRATIONS } from './db/migrations.ts';
import { countSealedByKeyId, keyIdsMissingFromRing } from './domain/secrets/reencrypt.ts';
import { announceInstall } from './domain/identity/installed.ts';
import { backupMaker } from './ops/backups.ts';
import { diskFullMonitor } from './ops/disk-full.ts';
import { DatabaseRefusal, isDamageError, openCheckedDatabase, restoreAdvice, writeInstallMarker } from './ops/database-check.ts';
import { systemClock } from './lib/clock.ts';
import { selfExecutable } from './ops/executable.ts';
import type { Logger } from './lib/logger.ts';

export interface RunningServer {
  url: string;
  socketPath: string;
  /** Stops accepting, lets in-flight requests finish, closes the database. */
  stop(): Promise<void>;
}

/** A refusal to start that main prints as one clear line and exits non-zero. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * Opens (and migrates) the database of a data dir; used by `serve`, `migrate` and the commands
 * that read it. A damaged database, or a missing or empty one where the data dir shows a previous
 * install, is refused with one line (src/ops/database-check.ts); once migrated, the data dir is
 * marked as installed.
 */
export function openMigratedDatabase(config: Config, logger: Logger): Database {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  let sqlite: Database;
  try {
    sqlite = openCheckedDatabase(config.databaseFile, config.dataDir, openDatabase);
  } catch (error) {
    if (error instanceof DatabaseRefusal) throw new StartupError(error.message);
    throw error;
  }
  try {
    const applied = migrate(sqlite, MIGRATIONS);
    if (applied > 0) logger.info('database migrated', { applied, file: config.databaseFile });
    writeInstallMarker(config.dataDir);
  } catch (error) {
    sqlite.close();
    throw new StartupError(isDamageError(error) ? `${config.databaseFile} is damaged (SQLite says: ${(error as Error).message}); ${restoreAdvice(config.dataDir)}` : (error as Error).message);
  }
  return sqlite;
}

export interface ServeOptions {
  /**
   * How to run this very executable (`[panel]`, or `[bun, src/main.ts]` from source): with
   * PANEL_LOCAL_DAEMON=auto, `panel serve` starts `<it> daemon run --local` as a supervised child.
   */
  selfCommand?: string[];
}

export async function serve(config: Config, logger: Logger, options: ServeOptions = {}): Promise<RunningServer> {
  let keyring: KeyRing;
  try {
    keyring = parseKeyRing(config.secrets);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  let localCredential: string;
  try {
    localCredential = ensureLocalDaemonCredential(config.localDaemonCredentialFile);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  const sqlite = openMigratedDatabase(config, logger);
  const db = createDb(sqlite);
  // One hub for both listeners: one view of connected daemons, one change feed.
  const hub = new DaemonHub({ db, clock: systemClock, logger, localCredential, observe: observabilityOptionsOf(config, keyring) });
  const localDaemon = config.localDaemon === 'auto' && options.selfCommand ? localDaemonSupervisor(config, logger, options.selfCommand) : undefined;
  const executable = options.selfCommand ? selfExecutable(options.selfCommand, config.dataDir, logger) : undefined;
  // One disk-full state and one backup queue for both listeners.
  const operations = { diskFull: diskFullMonitor(config.dataDir, logger), backups: backupMaker(config, systemClock) };
  const deps: AppDeps = { config, sqlite, db, keyring, clock: systemClock, logger, hub, localDaemon, executable, ...operations };
  try {
    assertKeyRingOpensEverything(deps.db, keyring);
  } catch (error) {
    sqlite.close();
    throw error;
  }

  const serveOptions = { maxRequestBodySize: config.maxBodyBytes + 64 * 1024 };
  let tcp: ReturnType<typeof buildApp>;
  try {
    // reusePort:false: Elysia's default would let a second process silently share the port.
    tcp = buildApp({ ...deps, listener: 'tcp' }).listen({ hostname: config.host, port: config.port, reusePort: false, ...serveOptions });
  } catch (error) {
    sqlite.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new StartupError(`port ${config.port} on ${config.host} is already in use; is another Panel running?`);
    throw new StartupError(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }

  // PANEL_PORT=0 picked a free port: the derived public URL (origin checks, cookies) names it.
  if (new URL(config.publicUrl).port === '0') config.publicUrl = config.publicUrl.replace(/:0$/, `:${tcp.server?.port}`);

  let local: ReturnType<typeof buildApp>;
  try {
    await removeStaleSocket(config.daemonSocket);
    local = buildApp({ ...deps, listener: 'unix' }).listen({ unix: config.daemonSocket, ...serveOptions } as never);
    chmodSync(config.daemonSocket, 0o600);
  } catch (error) {
    await tcp.stop();
    sqlite.close();
    throw error instanceof StartupError ? error : new StartupError(`cannot listen on ${config.daemonSocket}: ${(error as Error).message}`);
  }

  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${tcp.server?.port}`;
  // First boot (self-hosted): the one-time install token goes to <data dir>/install-token (0600).
  announceInstall(deps.db, config, logger);
  hub.start();
  localDaemon?.start();
  logger.info('panel serving', {
    url,
    publicUrl: config.publicUrl,
    socket: config.daemonSocket,
    localDaemonCredentialFile: config.localDaemonCredentialFile,
    runtime: config.runtime,
  });
  return {
    url,
    socketPath: config.daemonSocket,
    async stop() {
      await localDaemon?.stop();
      hub.stop();
      await Promise.all([tcp.stop(), local.stop()]);
      sqlite.close();
      if (existsSync(config.daemonSocket)) unlinkSync(config.daemonSocket);
    },
  };
}

/** The local daemon as a child of this process, its state kept in <data dir>/local-daemon. */
function localDaemonSupervisor(config: Config, logger: Logger, selfCommand: string[]): LocalDaemonSupervisor {
  const argv = [
    ...selfCommand,
    ...['daemon', 'run', '--local', '--socket', config.daemonSocket, '--credential-file', config.localDaemonCredentialFile],
    ...['--state-dir', join(config.dataDir, 'local-daemon')],
  ];
  // The daemon gets what reaches Docker and nothing of Panel's own settings (the key ring above all).
  const env: Record<string, string | undefined> = { PANEL_LOG_LEVEL: config.logLevel };
  for (const name of [...PASSED_ENVIRONMENT, 'XDG_RUNTIME_DIR']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return new LocalDaemonSupervisor({ argv, env, logger });
}

/** Refuses to start when stored secrets are sealed under a key the ring no longer holds. */
function assertKeyRingOpensEverything(db: AppDeps['db'], keyring: KeyRing): void {
  const missing = Object.entries(keyIdsMissingFromRing(countSealedByKeyId(db), keyring));
  if (missing.length === 0) return;
  const detail = missing.map(([keyId, rows]) => `key "${keyId}" still seals ${rows} stored secret(s)`).join('; ');
  throw new StartupError(`PANEL_SECRETS lacks keys in use: ${detail}. Add the key back after the current one, start, and re-encrypt before removing it.`);
}

/**
 * A socket file left by a crashed process is removed; one that still answers belongs to a
 * running Panel and is a startup error rather than something to steal.
 */
async function removeStaleSocket(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) return;
  if (!lstatSync(path).isSocket()) throw new StartupError(`${path} exists and is not a socket; refusing to replace it`);
  // Only a crash leaves the socket behind: node:net loads just for that probe.
  const { connect } = await import('node:net');
  const alive = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => { probe.destroy(); resolve(true); });
    probe.once('error', () => resolve(false));
  });
  if (alive) throw new StartupError(`${path} is in use by a running process; is another Panel running?`);
  unlinkSync(path);
}
