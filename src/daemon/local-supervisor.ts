/**
 * "This machine", connected without another command: with PANEL_LOCAL_DAEMON=auto (the default;
 * install.sh sets `off`, its panel-daemon unit runs the daemon as root) `panel serve` starts
 * `panel daemon run --local` as a child once a Docker engine answers, and supervises it:
 *
 * - the engine is probed with `docker version` (DOCKER_HOST, else the default socket) at start
 *   and every ENGINE_RECHECK_MS while it does not answer, so installing or starting Docker later
 *   needs no restart of Panel;
 * - a child that exits is started again after 1 s, doubling up to 30 s (reset once it ran a
 *   minute); exit status 3 (its credential refused) needs an operator and is not retried;
 * - the child's log lines pass through to Panel's stderr, and the last few are kept to explain
 *   a crash;
 * - `stop()` ends it with SIGTERM (SIGKILL after 10 s).
 *
 * `status()` says what is true in words for the Servers page, with the one command that fixes
 * what keeps this machine from connecting.
 */
import { userInfo } from 'node:os';
import type { SupervisedStatus } from '../domain/servers/this-machine.ts';
import { sleepUnlessAborted } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { createCommandRunner, lastLine } from './agent/docker-cli.ts';

export const ENGINE_RECHECK_MS = 15_000;
const MIN_RESTART_MS = 1_000;
const MAX_RESTART_MS = 30_000;
const STABLE_RUN_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const EXIT_PARKED = 3;
const KEPT_LINES = 20;

export type EngineProbe = { ok: true; version: string } | { ok: false; problem: string; fix: string };

/** What the supervisor needs of a child process (Bun's Subprocess, or a fake in tests). */
export interface ChildProcess {
  readonly exited: Promise<number>;
  kill(signal?: NodeJS.Signals): void;
}

export interface SupervisorOptions {
  /** argv of the daemon, e.g. [panel, 'daemon', 'run', '--local', '--socket', S, ...]. */
  argv: string[];
  env: Record<string, string | undefined>;
  logger: Logger;
  probeEngine?: () => Promise<EngineProbe>;
  spawn?: (argv: string[], env: Record<string, string | undefined>, onLine: (line: string) => void) => ChildProcess;
  /** Waits `ms` unless the supervisor stops first (tests resolve it by hand). */
  sleep?: (ms: number, stopped: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Where the daemon's own log lines go: Panel's stderr. */
  passLine?: (line: string) => void;
}

/** Classifies `docker version` failing: not installed, no permission, engine down, DOCKER_HOST dead. */
export async function probeDockerEngine(env: Record<string, string | undefined>, logger: Logger): Promise<EngineProbe> {
  const run = createCommandRunner(env, logger);
  const result = await run(['docker', 'version', '--format', '{{.Server.Version}}'], { timeoutMs: 20_000 });
  if (result.exitCode === 0 && result.stdout.trim()) return { ok: true, version: result.stdout.trim() };
  const detail = lastLine(result.stderr) || `docker version exited ${result.exitCode}`;
  // 127: the runner could not start `docker` at all.
  if (result.exitCode === 127) {
    return {
      ok: false,
      problem: 'Docker is not installed on this machine, so Panel cannot run containers here.',
      fix: 'curl -fsSL https://get.docker.com -o get-docker.sh && sudo sh get-docker.sh',
    };
  }
  if (/permission denied/i.test(detail)) {
    const user = safeUserName();
    return {
      ok: false,
      problem: `Panel runs as ${user}, who may not use the Docker engine (${detail}). Add ${user} to the docker group, then start Panel again from a new login.`,
      fix: `sudo usermod -aG docker ${user}`,
    };
  }
  if (env.DOCKER_HOST) {
    return {
      ok: false,
      problem: `The Docker engine at DOCKER_HOST=${env.DOCKER_HOST} does not answer (${detail}). Start that engine, or unset DOCKER_HOST and start Panel again.`,
      fix: 'unset DOCKER_HOST',
    };
  }
  return { ok: false, problem: `The Docker engine is not running on this machine (${detail}).`, fix: 'sudo systemctl start docker' };
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return '$USER';
  }
}

function defaultSpawn(argv: string[], env: Record<string, string | undefined>, onLine: (line: string) => void): ChildProcess {
  const child = Bun.spawn(argv, { env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  for (const stream of [child.stdout, child.stderr]) void forwardLines(stream, onLine);
  return child;
}

async function forwardLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  }
  if (pending) onLine(pending);
}

export class LocalDaemonSupervisor {
  private current: SupervisedStatus = { state: 'checking', problem: null, fix: null };
  private child: ChildProcess | null = null;
  private readonly stopping = new AbortController();
  private readonly lines: string[] = [];
  private loop: Promise<void> | null = null;

  constructor(private readonly options: SupervisorOptions) {}

  status(): SupervisedStatus {
    return { ...this.current };
  }

  start(): void {
    this.loop ??= this.run().catch((error) => {
      this.options.logger.error('the local daemon supervisor stopped', { error: (error as Error).message });
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    const child = this.child;
    if (child) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await child.exited.catch(() => undefined);
      clearTimeout(killer);
    }
    await this.loop;
  }

  private async run(): Promise<void> {
    const { logger, env } = this.options;
    const probe = this.options.probeEngine ?? (() => probeDockerEngine(env, logger));
    const sleep = this.options.sleep ?? sleepUnlessAborted;
    const now = this.options.now ?? Date.now;
    const stopped = this.stopping.signal;
    let restartDelay = MIN_RESTART_MS;
    let reportedProblem = '';
    while (!stopped.aborted) {
      const engine = await probe();
      if (stopped.aborted) return;
      if (!engine.ok) {
        this.current = { state: 'no_engine', problem: engine.problem, fix: engine.fix };
        // Said once per distinct problem; the recheck itself is quiet.
        if (engine.problem !== reportedProblem) logger.warn('this machine is not connected: no Docker engine answers', { problem: engine.problem, fix: engine.fix });
        reportedProblem = engine.problem;
        await sleep(ENGINE_RECHECK_MS, stopped);
        continue;
      }
      reportedProblem = '';
      const startedAt = now();
      const exitCode = await this.runChild(engine.version);
      if (stopped.aborted) return;
      const lastWords = this.lines.slice(-3).join(' | ');
      if (exitCode === EXIT_PARKED) {
        this.current = { state: 'refused', problem: `The local daemon's credential was refused: ${lastWords}`, fix: null };
        logger.error('the local daemon was refused by this control plane; not restarting it', { exitCode });
        return;
      }
      restartDelay = now() - startedAt >= STABLE_RUN_MS ? MIN_RESTART_MS : restartDelay;
      this.current = { state: 'restarting', problem: `The local daemon exited (status ${exitCode})${lastWords ? `: ${lastWords}` : ''}. Panel starts it again.`, fix: null };
      logger.warn('the local daemon exited; starting it again', { exitCode, retryInMs: restartDelay });
      await sleep(restartDelay, stopped);
      restartDelay = Math.min(MAX_RESTART_MS, restartDelay * 2);
    }
  }

  /** Runs one child to its end; answers its exit status. */
  private async runChild(engineVersion: string): Promise<number> {
    const { argv, env, logger } = this.options;
    const spawn = this.options.spawn ?? defaultSpawn;
    this.lines.length = 0;
    const child = spawn(argv, env, (line) => {
      (this.options.passLine ?? ((text) => process.stderr.write(`${text}\n`)))(line);
      this.lines.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
      if (this.lines.length > KEPT_LINES) this.lines.shift();
    });
    this.child = child;
    this.current = { state: 'running', problem: null, fix: null };
    logger.info('started the local daemon', { engineVersion });
    try {
      return await child.exited;
    } finally {
      this.child = null;
    }
  }
}
