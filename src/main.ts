#!/usr/bin/env bun
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, type Config, loadConfig } from './config.ts';
import { generateKeyRingText, KeyRingError, parseKeyRing } from './crypto/keyring.ts';
import { createLogger, type Logger } from './lib/logger.ts';
import { PANEL_VERSION } from './version.ts';

// Each command imports what it needs when it runs: in the executable every module imported here
// is evaluated at start, and `panel compose config` or `panel daemon` (the agent, a long-lived
// process) would load the whole server (HTTP routes, database, console) for nothing
// (docs/PERFORMANCE.md).

const USAGE = `panel ${PANEL_VERSION} — self-hosted deployment control plane

usage:
  panel serve                       control plane: HTTP + WebSocket, and the local daemon socket
  panel migrate                     apply pending database migrations and exit
  panel compose config <base.yaml> [overlay.yaml ...] [--json] [--policy [--host-access]]
                                    print the merged Compose model, like docker compose config
  panel daemon join <url> --token T enroll this machine's agent with a control plane
  panel daemon run [--local]        run the agent (--local: the control plane's unix socket)
  panel backup <file>               online, consistent copy of the database (safe while serving)
  panel restore <file>              check a backup and put it in place (Panel must be stopped)
  panel check                       full integrity check of the database (read-only; safe while serving)
  panel secrets status              stored secrets per key id, and whether the key ring opens them
  panel local-daemon reset-key      let the local daemon's next connection replace its pinned key
  panel version                     print the version

every command takes --log-level debug|info|warn|error (logs are JSON lines on stderr).
configuration comes from the environment (PANEL_DATA_DIR, PANEL_HOST, PANEL_PORT,
PANEL_PUBLIC_URL, PANEL_SECRETS, PANEL_RUNTIME, ...); see README.md.
`;

type Command = (args: string[], config: () => Config, logger: () => Logger) => Promise<number>;

/** This executable: the compiled `panel` alone, or the runtime plus this file when run from source. */
const SELF_COMMAND = import.meta.path.startsWith('/$bunfs/') ? [process.execPath] : [process.execPath, import.meta.path];

/**
 * The executable starts with JavaScriptCore's JIT tier-up thresholds raised (scripts/build.ts:
 * `--compile-jit-policy`): start-up code runs once, and compiling it costs more than it saves.
 * A command calls this once started, so what it runs from then on (serving requests, the agent,
 * parsing a large Compose file) is compiled as usual. A no-op when run from source.
 */
function afterStartUp(): void {
  Bun.unsafe.setJITPolicy(1);
}

/**
 * `panel compose config` keeps the raised policy on a small project (50 services: a third less
 * CPU) but not on a large one, whose parse and print are loops long enough to repay compiling
 * (since the direct reader and printer: even at 500 services, ~25% more CPU under the raised
 * policy at 1,000); docs/PERFORMANCE.md (10, 16).
 */
const LARGE_COMPOSE_INPUT_BYTES = 100 * 1024;
const composeInputBytes = (args: string[]) =>
  args.filter((arg) => !arg.startsWith('-')).reduce((sum, path) => sum + (statSync(path, { throwIfNoEntry: false })?.size ?? 0), 0);

const commands: Record<string, Command> = {
  async serve(_args, config, logger) {
    // The database, its WAL and the socket hold sealed secrets and session hashes: owner only.
    process.umask(0o077);
    const log = logger();
    const { serve } = await import('./server.ts');
    const server = await serve(config(), log, { selfCommand: SELF_COMMAND });
    afterStartUp();
    await new Promise<void>((resolve) => {
      const shutdown = (signal: string) => {
        log.info('shutting down', { signal });
        resolve();
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    });
    await server.stop();
    log.info('stopped');
    return 0;
  },
  async migrate(_args, config, logger) {
    process.umask(0o077);
    const { openMigratedDatabase } = await import('./server.ts');
    openMigratedDatabase(config(), logger()).close();
    return 0;
  },
  async secrets(args, config, logger) {
    if (args[0] !== 'status') {
      process.stderr.write('usage: panel secrets status\n');
      return 2;
    }
    const current = config();
    const keyring = parseKeyRing(current.secrets);
    const [{ openMigratedDatabase }, { createDb }, { countSealedByKeyId, formatKeyIdCounts, keyIdsMissingFromRing }] = await Promise.all([
      import('./server.ts'),
      import('./db/client.ts'),
      import('./domain/secrets/reencrypt.ts'),
    ]);
    const sqlite = openMigratedDatabase(current, logger());
    try {
      const counts = countSealedByKeyId(createDb(sqlite));
      process.stdout.write(formatKeyIdCounts(counts, keyring));
      return Object.keys(keyIdsMissingFromRing(counts, keyring)).length === 0 ? 0 : 1;
    } finally {
      sqlite.close();
    }
  },
  async 'local-daemon'(args, config, logger) {
    if (args[0] !== 'reset-key' || args.length !== 1) {
      process.stderr.write('usage: panel local-daemon reset-key\n');
      return 2;
    }
    process.umask(0o077);
    const [{ openMigratedDatabase }, { createDb }, { allowNewLocalDaemonKey }, { DomainError }] = await Promise.all([
      import('./server.ts'),
      import('./db/client.ts'),
      import('./domain/servers/local-key.ts'),
      import('./lib/errors.ts'),
    ]);
    const sqlite = openMigratedDatabase(config(), logger());
    try {
      const reset = allowNewLocalDaemonKey(createDb(sqlite), new Date());
      process.stdout.write(
        `the local daemon's next connection may bring a new key (pinned now: ${reset.pinnedKeyId ?? 'none'}); it still needs the local daemon credential\n`,
      );
      return 0;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      process.stderr.write('panel: there is no local server yet; the local daemon pins its key at its first connection\n');
      return 1;
    } finally {
      sqlite.close();
    }
  },
  async backup(args, config) {
    const target = args[0];
    if (!target || args.length !== 1) {
      process.stderr.write('usage: panel backup <file>\n');
      return 2;
    }
    process.umask(0o077);
    const { backupDatabase } = await import('./ops/backup.ts');
    const { bytes, madeBy } = await backupDatabase(config(), resolve(target));
    process.stdout.write(`backup written to ${resolve(target)} (${bytes} bytes, made by ${madeBy === 'server' ? 'the running Panel' : 'this process'})\n`);
    return 0;
  },
  async restore(args, config) {
    const source = args[0];
    if (!source || args.length !== 1) {
      process.stderr.write('usage: panel restore <file>\n');
      return 2;
    }
    process.umask(0o077);
    const current = config();
    const [{ restoreDatabase }, { MIGRATIONS }] = await Promise.all([import('./ops/backup.ts'), import('./db/migrations.ts')]);
    const report = await restoreDatabase(current, parseKeyRing(current.secrets), resolve(source), MIGRATIONS);
    process.stdout.write(`restored ${resolve(source)} into ${current.databaseFile}\n`);
    const unopenable = Object.entries(report.unopenable);
    if (unopenable.length === 0) return 0;
    const detail = unopenable.map(([keyId, rows]) => `${rows} sealed under "${keyId}"`).join(', ');
    process.stderr.write(`panel: PANEL_SECRETS cannot open ${detail}; start Panel with the key ring the backup was made under\n`);
    return 1;
  },
  async check(args, config) {
    if (args.length !== 0) {
      process.stderr.write('usage: panel check\n');
      return 2;
    }
    const { databaseFile, dataDir } = config();
    const { checkDatabaseFully } = await import('./ops/database-check.ts');
    process.stdout.write(`${checkDatabaseFully(databaseFile, dataDir)}\n`);
    return 0;
  },
  async compose(args) {
    // Pure: needs no configuration, data dir or key ring.
    const { composeConfigCommand } = await import('./compose/cli.ts');
    if (composeInputBytes(args) > LARGE_COMPOSE_INPUT_BYTES) afterStartUp();
    return composeConfigCommand(args, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) });
  },
  async daemon(args) {
    // The agent reads its own state dir and flags; it needs no control-plane configuration.
    const { daemonCommand } = await import('./daemon/agent/cli.ts');
    afterStartUp();
    return daemonCommand(args, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) });
  },
  async version() {
    process.stdout.write(`${PANEL_VERSION}\n`);
    return 0;
  },
  async help() {
    process.stdout.write(USAGE);
    return 0;
  },
};

/** `--log-level <level>` (or `=level`) anywhere on the command line overrides PANEL_LOG_LEVEL. */
function takeLogLevelFlag(argv: string[]): string[] {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--log-level') process.env.PANEL_LOG_LEVEL = argv[++i] ?? '';
    else if (arg.startsWith('--log-level=')) process.env.PANEL_LOG_LEVEL = arg.slice('--log-level='.length);
    else rest.push(arg);
  }
  return rest;
}

/** The refusal meant for the operator, said in one line, or undefined; their modules load only once something failed. */
async function oneLineRefusal(error: unknown): Promise<Error | undefined> {
  if (error instanceof ConfigError || error instanceof KeyRingError) return error;
  const [{ StartupError }, { OperationError }, { DatabaseRefusal }] = await Promise.all([import('./server.ts'), import('./ops/backup.ts'), import('./ops/database-check.ts')]);
  return error instanceof StartupError || error instanceof OperationError || error instanceof DatabaseRefusal ? error : undefined;
}

async function main(argv: string[]): Promise<number> {
  const [name = 'help', ...args] = takeLogLevelFlag(argv);
  const command = commands[name === '--help' || name === '-h' ? 'help' : name];
  if (!command) {
    process.stderr.write(`panel: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  let config: Config | undefined;
  const getConfig = () => (config ??= loadConfig(process.env, generateKeyRingText));
  const getLogger = () => createLogger(getConfig().logLevel);
  try {
    return await command(args, getConfig, getLogger);
  } catch (error) {
    const refusal = await oneLineRefusal(error);
    if (!refusal) throw error;
    process.stderr.write(`panel: ${refusal.message}\n`);
    return refusal instanceof ConfigError ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
