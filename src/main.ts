#!/usr/bin/env bun
import { ConfigError, type Config, loadConfig } from './config.ts';
import { generateKeyRingText, KeyRingError, parseKeyRing } from './crypto/keyring.ts';
import { createDb } from './db/client.ts';
import { countSealedByKeyId, formatKeyIdCounts, keyIdsMissingFromRing } from './domain/secrets/reencrypt.ts';
import { createLogger, type Logger } from './lib/logger.ts';
import { openMigratedDatabase, serve, StartupError } from './server.ts';
import { PANEL_VERSION } from './version.ts';

const USAGE = `panel ${PANEL_VERSION} — self-hosted deployment control plane

usage:
  panel serve                       control plane: HTTP + WebSocket, and the local daemon socket
  panel migrate                     apply pending database migrations and exit
  panel secrets status              stored secrets per key id, and whether the key ring opens them
  panel version                     print the version

configuration comes from the environment (PANEL_DATA_DIR, PANEL_HOST, PANEL_PORT,
PANEL_PUBLIC_URL, PANEL_SECRETS, PANEL_RUNTIME, ...); see README.md.
`;

type Command = (args: string[], config: () => Config, logger: () => Logger) => Promise<number>;

const commands: Record<string, Command> = {
  async serve(_args, config, logger) {
    // The database, its WAL and the socket hold sealed secrets and session hashes: owner only.
    process.umask(0o077);
    const log = logger();
    const server = await serve(config(), log);
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
  async version() {
    process.stdout.write(`${PANEL_VERSION}\n`);
    return 0;
  },
  async help() {
    process.stdout.write(USAGE);
    return 0;
  },
};

async function main(argv: string[]): Promise<number> {
  const [name = 'help', ...args] = argv;
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
    if (error instanceof ConfigError || error instanceof StartupError || error instanceof KeyRingError) {
      process.stderr.write(`panel: ${error.message}\n`);
      return error instanceof ConfigError ? 2 : 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
