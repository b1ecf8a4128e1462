/**
 * `panel daemon join|run`: the agent's command line. Exit codes: 0 done or stopped, 1 an
 * identity or enrollment problem (the message says what to do), 2 usage, 3 parked because the
 * control plane refused the credential.
 */
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { defaultDaemonSocket, type LogLevel } from '../../config.ts';
import { createLogger, type Logger } from '../../lib/logger.ts';
import { PANEL_VERSION } from '../../version.ts';
import { readLocalDaemonCredential, resolveLocalCredentialFile } from '../local-credential.ts';
import type { HelloFrame } from '../../contract/daemon-protocol.ts';
import { CommandJournal } from './command-journal.ts';
import { ComposeRunner } from './compose-runner.ts';
import { type HubTarget, HubConnection, localHubTarget } from './connection.ts';
import { createCommandRunner, DockerCli } from './docker-cli.ts';
import { FabricAgent } from './fabric/fabric-agent.ts';
import { HostNetwork } from './fabric/host-network.ts';
import { IngressAgent } from './ingress/agent.ts';
import { AgentObserver } from './observer.ts';
import {
  type AgentIdentity,
  daemonWebSocketUrl,
  IdentityError,
  joinControlPlane,
  loadIdentity,
  type LocalIdentity,
  loadOrCreateLocalIdentity,
  rememberServerId,
  resolveStateDir,
} from './identity.ts';

export const DAEMON_USAGE = `usage:
  panel daemon join <url> --token <token> [--name <name>] [--state-dir <dir>] [--force]
      enroll this server with the control plane at <url> (token also from PANEL_DAEMON_TOKEN);
      --name: its name there (default: its hostname); a machine already enrolled joins again
      (--force) only with a token that replaces its server
  panel daemon run [--state-dir <dir>]
      connect to the control plane joined before and run its deploy, stop, destroy and fabric commands
  panel daemon run --local [--socket <path>] [--credential-file <file>] [--state-dir <dir>]
      the local daemon: connect over the control plane's unix socket, no enrollment; it proves
      itself with the credential panel serve keeps in <data dir>/local-daemon.credential

state dir:       --state-dir, PANEL_DAEMON_STATE_DIR or /var/lib/panel-daemon
socket:          --socket, PANEL_DAEMON_SOCKET, <PANEL_DATA_DIR or ./data>/daemon.sock (where
                 panel serve listens by default), else /run/panel/daemon.sock (install.sh)
credential file: --credential-file, PANEL_LOCAL_DAEMON_CREDENTIAL_FILE, <PANEL_DATA_DIR or ./data>/
                 local-daemon.credential (where panel serve keeps it), else install.sh's
                 /var/lib/panel/local-daemon.credential
fabric:          PANEL_DAEMON_FABRIC_STATUS_SECONDS (60): how often the overlay fabric's state is reported
exit codes: 0 stopped, 1 identity or enrollment error, 2 usage, 3 credential refused (re-join)
`;

/** ip, wg and iptables live in sbin, which a daemon started by hand may not have on its PATH. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Where install.sh's units put the socket; looked at when the default of `panel serve` has none. */
export const SYSTEM_DAEMON_SOCKET = '/run/panel/daemon.sock';

/**
 * --socket when given (relative to the working directory); else where `panel serve` listens by
 * the same environment (PANEL_DAEMON_SOCKET, else <PANEL_DATA_DIR or ./data>/daemon.sock), and
 * when no socket is there but install.sh's is, that one.
 */
export function localSocketPath(flag: string | undefined, env: Record<string, string | undefined>): string {
  if (flag) return resolve(flag);
  const served = defaultDaemonSocket(env);
  if (!env.PANEL_DAEMON_SOCKET?.trim() && !existsSync(served) && existsSync(SYSTEM_DAEMON_SOCKET)) return SYSTEM_DAEMON_SOCKET;
  return served;
}
const EXIT_PARKED = 3;

export interface DaemonIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env?: Record<string, string | undefined>;
  /** Stops `run`; without one, SIGINT and SIGTERM do. */
  signal?: AbortSignal;
}

interface ParsedArgs {
  positional: string[];
  options: Map<string, string | true>;
}

const VALUE_OPTIONS = new Set(['--token', '--state-dir', '--socket', '--credential-file', '--name']);
const FLAG_OPTIONS = new Set(['--force', '--local', '--help', '-h']);

function parseArgs(args: string[]): ParsedArgs | string {
  const parsed: ParsedArgs = { positional: [], options: new Map() };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const [name, inlineValue] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (VALUE_OPTIONS.has(name)) {
      const value = inlineValue ?? args[++index];
      if (!value) return `${name} needs a value`;
      parsed.options.set(name, value);
    } else if (FLAG_OPTIONS.has(name) && inlineValue === undefined) {
      parsed.options.set(name, true);
    } else if (arg.startsWith('-')) {
      return `unknown option ${arg}`;
    } else {
      parsed.positional.push(arg);
    }
  }
  return parsed;
}

const option = (parsed: ParsedArgs, name: string): string | undefined => {
  const value = parsed.options.get(name);
  return typeof value === 'string' ? value : undefined;
};

export async function daemonCommand(args: string[], io: DaemonIo): Promise<number> {
  const env = io.env ?? process.env;
  const [subcommand, ...rest] = args;
  const parsed = parseArgs(rest);
  if (subcommand === '--help' || subcommand === '-h' || (typeof parsed !== 'string' && parsed.options.has('--help'))) {
    io.stdout(DAEMON_USAGE);
    return 0;
  }
  if (typeof parsed === 'string' || (subcommand !== 'join' && subcommand !== 'run')) {
    io.stderr(`panel daemon: ${typeof parsed === 'string' ? parsed : subcommand ? `unknown command "${subcommand}"` : 'a command is required'}\n${DAEMON_USAGE}`);
    return 2;
  }
  const stateDir = resolveStateDir(option(parsed, '--state-dir'), env);
  try {
    return subcommand === 'join' ? await joinCommand(parsed, stateDir, env, io) : await runCommand(parsed, stateDir, env, io);
  } catch (error) {
    if (!(error instanceof IdentityError)) throw error;
    io.stderr(`panel daemon: ${error.message}\n`);
    return 1;
  }
}

async function joinCommand(parsed: ParsedArgs, stateDir: string, env: Record<string, string | undefined>, io: DaemonIo): Promise<number> {
  const [url, ...extra] = parsed.positional;
  const token = option(parsed, '--token') ?? env.PANEL_DAEMON_TOKEN;
  if (!url || extra.length > 0 || !token) {
    io.stderr(`panel daemon join: ${!url || extra.length > 0 ? 'exactly one <url> is required' : '--token is required'}\n${DAEMON_USAGE}`);
    return 2;
  }
  const identity = await joinControlPlane({ url, token, stateDir, force: parsed.options.has('--force'), name: option(parsed, '--name') });
  if (identity.url.startsWith('http:')) io.stderr('panel daemon: warning: the control plane url is plain http; the credential travels unencrypted\n');
  io.stdout(`joined ${identity.url} as server ${identity.serverId}; identity stored in ${join(stateDir, 'identity.json')}\nstart the agent with: panel daemon run\n`);
  return 0;
}

async function runCommand(parsed: ParsedArgs, stateDir: string, env: Record<string, string | undefined>, io: DaemonIo): Promise<number> {
  if (parsed.positional.length > 0) {
    io.stderr(`panel daemon run: unexpected argument ${parsed.positional[0]}\n${DAEMON_USAGE}`);
    return 2;
  }
  const local = parsed.options.has('--local');
  const logger = createLogger(logLevel(env.PANEL_LOG_LEVEL), (line) => io.stderr(line));
  let identity: AgentIdentity | LocalIdentity;
  let target: HubTarget;
  const credentialFile = resolveLocalCredentialFile(option(parsed, '--credential-file'), env);
  if (local) {
    identity = await loadOrCreateLocalIdentity(stateDir);
    target = localHubTarget(localSocketPath(option(parsed, '--socket'), env), async () => {
      const credential = await readLocalDaemonCredential(credentialFile);
      if (credential === null) throw new Error(`${credentialFile} does not exist yet (panel serve creates it at its first start)`);
      return credential;
    });
  } else {
    const joined = await loadIdentity(stateDir);
    identity = joined;
    target = { url: daemonWebSocketUrl(joined.url), credential: joined.credential };
  }
  let serverId = identity.serverId;

  const docker = new DockerCli(createCommandRunner(env, logger));
  let connection: HubConnection | undefined;
  const fabric = await FabricAgent.open({
    stateDir,
    host: new HostNetwork(createCommandRunner({ ...env, PATH: `${env.PATH ? `${env.PATH}:` : ''}${SYSTEM_PATH}` }, logger)),
    logger,
    send: (status) => connection?.notify({ type: 'fabric', ...status }) ?? false,
    statusIntervalMs: seconds(env.PANEL_DAEMON_FABRIC_STATUS_SECONDS, 60) * 1000,
  });
  await fabric.restore();
  fabric.start();
  const runner = new ComposeRunner({
    stateDir,
    docker,
    fabric,
    identity: () => (serverId ? { serverId, daemonKeyId: identity.keyId, privateKey: identity.privateKey } : null),
    logger,
  });
  const journal = await CommandJournal.open(join(stateDir, 'commands.json'));
  const ingress = new IngressAgent({
    stateDir,
    docker,
    runner,
    identity: () => (serverId ? { serverId, daemonKeyId: identity.keyId, privateKey: identity.privateKey } : null),
    logger,
    env,
    send: (state) => connection?.notify({ type: 'ingress', ...state }) ?? false,
  });
  await ingress.restore();
  const { signal, release } = stopSignal(io.signal);
  let recording: Promise<void> = Promise.resolve();

  logger.info('panel daemon starting', { version: PANEL_VERSION, url: target.url, serverId, stateDir, ...(local ? { credentialFile } : {}) });
  let observer: AgentObserver | undefined;
  connection = new HubConnection({
    target,
    journal,
    logger,
    signal,
    session: {
      hello: () =>
        buildHello(docker, logger, {
          serverId,
          machineId: identity.machineId,
          daemonKey: local ? { keyId: identity.keyId, publicKey: identity.publicKey } : undefined,
          features: observer?.features,
        }),
      onWelcome: (welcomedId) => {
        serverId = welcomedId;
        recording = rememberServerId(stateDir, local, welcomedId);
        void fabric.report();
        void ingress.reconnected();
        return recording;
      },
      execute: async (command, progress, output) => {
        if (command.kind === 'fabric') return fabric.execute(command);
        if (command.kind === 'deploy' && command.payload.ingress) return ingress.deploy(command, output);
        const outcome = await runner.execute(command, progress, output);
        void ingress.refresh(`${command.kind} of ${command.payload.project}`);
        return outcome;
      },
      onWatch: (metricsIntervalMs) => observer?.setMetricsInterval(metricsIntervalMs),
    },
  });
  observer = new AgentObserver({ env, docker, isBusy: (project) => runner.isBusy(project), link: connection.link, logger, stateDir });
  void observer.start(signal).catch((error) => logger.error('observability stopped', { error: (error as Error).message }));
  const end = await connection.run();
  release();
  fabric.stop();
  ingress.stop();
  await recording.catch(() => undefined); // logged by the connection; just never exit mid-write
  if (end.reason === 'parked') {
    const remedy = local
      ? `${credentialFile} must be the file panel serve uses (<data dir>/local-daemon.credential or PANEL_LOCAL_DAEMON_CREDENTIAL_FILE); restart this daemon once it is`
      : 'create a join token that replaces this server, then run "panel daemon join <url> --token <token> --force"';
    io.stderr(`panel daemon: the control plane refused this daemon's credential (${end.detail}); ${remedy}\n`);
    return EXIT_PARKED;
  }
  return 0;
}

async function buildHello(
  docker: DockerCli,
  logger: Logger,
  fields: { serverId?: string; machineId: string; daemonKey?: HelloFrame['daemonKey']; features?: HelloFrame['features'] },
): Promise<HelloFrame> {
  const [engine, compose] = await Promise.all([
    docker.engineVersion(),
    docker.compose().catch((error: Error) => {
      logger.warn('Docker Compose is not available; deploys will fail until it is installed', { error: error.message });
      return null;
    }),
  ]);
  return {
    type: 'hello',
    hostname: hostname(),
    ...(fields.serverId ? { serverId: fields.serverId } : {}),
    machineId: fields.machineId,
    version: PANEL_VERSION,
    docker: { version: engine, composeVersion: compose?.version ?? null },
    ...(fields.daemonKey ? { daemonKey: fields.daemonKey } : {}),
    ...(fields.features ? { features: fields.features } : {}),
  };
}

/** The caller's signal, or one aborted by SIGINT/SIGTERM; `release` removes the handlers. */
function stopSignal(given: AbortSignal | undefined): { signal: AbortSignal; release: () => void } {
  if (given) return { signal: given, release: () => {} };
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** A whole number of seconds from 1 to 3600, else the default. */
function seconds(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value !== undefined && Number.isInteger(parsed) && parsed >= 1 && parsed <= 3600 ? parsed : fallback;
}

function logLevel(value: string | undefined): LogLevel {
  return value === 'debug' || value === 'warn' || value === 'error' ? value : 'info';
}
