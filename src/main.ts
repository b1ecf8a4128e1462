#!/usr/bin/env bun
import { resolve } from 'node:path';
import { composeConfigCommand } from './compose/cli.ts';
import { ConfigError, type Config, loadConfig } from './config.ts';
import { daemonCommand } from './daemon/agent/cli.ts';
import { generateKeyRingText, KeyRingError, parseKeyRing } from './crypto/keyring.ts';
import { createDb } from './db/client.ts';
import { countSealedByKeyId, formatKeyIdCounts, keyIdsMissingFromRing } from './domain/secrets/reencrypt.ts';
import { allowNewLocalDaemonKey } from './domain/servers/local-key.ts';
import { DomainError } from './lib/errors.ts';
import { createLogger, type Logger } from './lib/logger.ts';
import { MIGRATIONS } from './db/migrations.ts';
import { backupDatabase, OperationError, restoreDatabase } from './ops/backup.ts';
import { checkDatabaseFully, DatabaseRefusal } from './ops/database-check.ts';
import { openMigratedDatabase, serve, StartupError } from './server.ts';
import { PANEL_VERSION } from './version.ts';

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

const commands: Record<string, Command> = {
  async serve(_args, config, logger) {
    // The database, its WAL and the socket hold sealed secrets and session hashes: owner only.
    process.umask(0o077);
    const log = logger();
    const server = await serve(config(), log, { selfCommand: SELF_COMMAND });
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
    process.stdout.write(`${checkDatabaseFully(databaseFile, dataDir)}\n`);
    return 0;
  },
  async compose(args) {
    // Pure: needs no configuration, data dir or key ring.
    return composeConfigCommand(args, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) });
  },
  async daemon(args) {
    // The agent reads its own state dir and flags; it needs no control-plane configuration.
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
    if (error instanceof ConfigError || error instanceof StartupError || error instanceof KeyRingError || error instanceof OperationError || error instanceof DatabaseRefusal) {
      process.stderr.write(`panel: ${error.message}\n`);
      return error instanceof ConfigError ? 2 : 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
