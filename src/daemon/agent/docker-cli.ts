/**
 * The Docker and Compose command lines as the agent uses them. Every command is an argument
 * array given to Bun.spawn, never a shell string, and children get a minimal environment: the
 * Docker client's own variables pass through, the agent's (PANEL_*, anything else) do not.
 */
import type { Logger } from '../../lib/logger.ts';
import { toContainerState } from '../../contract/container-state.ts';
import type { ReportedContainer } from '../../contract/daemon-protocol.ts';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  timeoutMs?: number;
  /** Written to the child's stdin (closed after); without it stdin is /dev/null. */
  stdin?: string;
}

export type CommandRunner = (argv: readonly string[], options?: RunOptions) => Promise<CommandResult>;

/** Variables a child Docker or Compose process sees, when set in the agent's environment. */
export const PASSED_ENVIRONMENT = ['PATH', 'HOME', 'DOCKER_HOST', 'DOCKER_CONFIG', 'DOCKER_CONTEXT', 'DOCKER_CERT_PATH', 'DOCKER_TLS_VERIFY'];

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Exit code reported when the executable cannot be started at all (as a shell would). */
const NOT_RUNNABLE = 127;

/** The environment a Docker or Compose child process gets: the Docker client's own variables only. */
export function dockerEnvironment(env: Record<string, string | undefined>): Record<string, string> {
  const childEnv: Record<string, string> = {};
  for (const name of PASSED_ENVIRONMENT) if (env[name] !== undefined) childEnv[name] = env[name];
  return childEnv;
}

export function createCommandRunner(env: Record<string, string | undefined>, logger: Logger): CommandRunner {
  const childEnv = dockerEnvironment(env);
  return async (argv, options = {}) => {
    logger.debug('running', { argv, cwd: options.cwd });
    let child;
    try {
      child = Bun.spawn([...argv], {
        cwd: options.cwd,
        env: childEnv,
        stdin: options.stdin === undefined ? 'ignore' : new TextEncoder().encode(options.stdin),
        stdout: 'pipe',
        stderr: 'pipe',
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      });
    } catch (error) {
      return { exitCode: NOT_RUNNABLE, stdout: '', stderr: `${argv[0]}: ${(error as Error).message}` };
    }
    const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (child.signalCode) return { exitCode: exitCode || 1, stdout, stderr: `${stderr}\n${argv.slice(0, 3).join(' ')} killed by ${child.signalCode}` };
    return { exitCode, stdout, stderr };
  };
}

/** How Compose is invoked on this host: the v2 plugin first, the v1 executable as fallback. */
export interface ComposeCli {
  command: readonly string[];
  generation: 1 | 2;
  version: string;
}

export class ComposeUnavailableError extends Error {
  override name = 'ComposeUnavailableError';
}

export class DockerCli {
  private composeLookup: Promise<ComposeCli> | undefined;

  constructor(readonly run: CommandRunner) {}

  /** Detected once; a failed detection is retried on the next call (Compose may be installed later). */
  compose(): Promise<ComposeCli> {
    this.composeLookup ??= this.detectCompose().catch((error) => {
      this.composeLookup = undefined;
      throw error;
    });
    return this.composeLookup;
  }

  private async detectCompose(): Promise<ComposeCli> {
    const candidates = [
      { command: ['docker', 'compose'], generation: 2 as const },
      { command: ['docker-compose'], generation: 1 as const },
    ];
    const reasons: string[] = [];
    for (const candidate of candidates) {
      const result = await this.run([...candidate.command, 'version', '--short'], { timeoutMs: 30_000 });
      const version = result.stdout.trim();
      if (result.exitCode === 0 && version) return { ...candidate, version: version.replace(/^v/, '') };
      reasons.push(`${candidate.command.join(' ')}: ${lastLine(result.stderr) || `exit ${result.exitCode}`}`);
    }
    throw new ComposeUnavailableError(`no Docker Compose found (${reasons.join('; ')})`);
  }

  /** The engine's version, or null when the engine cannot be reached. */
  async engineVersion(): Promise<string | null> {
    const result = await this.run(['docker', 'version', '--format', '{{.Server.Version}}'], { timeoutMs: 30_000 });
    return result.exitCode === 0 && result.stdout.trim() ? result.stdout.trim() : null;
  }

  /** The ids of running containers carrying every label filter given (`key=value`). */
  async runningContainerIds(labels: readonly string[]): Promise<string[]> {
    const result = await this.run(['docker', 'ps', '-q', '--no-trunc', ...labels.flatMap((label) => ['--filter', `label=${label}`])], { timeoutMs: 60_000 });
    if (result.exitCode !== 0) throw new Error(`docker ps failed: ${lastLine(result.stderr)}`);
    return result.stdout.split('\n').map((line) => line.trim()).filter(Boolean);
  }

  /** `docker inspect` of containers, parsed (an empty list for no ids). */
  async inspectContainers(ids: readonly string[]): Promise<unknown[]> {
    if (ids.length === 0) return [];
    const result = await this.run(['docker', 'inspect', '--type', 'container', ...ids], { timeoutMs: 60_000 });
    // A container that went away between ps and inspect fails the whole call: list again next time.
    if (result.exitCode !== 0) throw new Error(`docker inspect failed: ${lastLine(result.stderr)}`);
    return JSON.parse(result.stdout) as unknown[];
  }

  /** Runs a command inside a running container. */
  exec(container: string, argv: readonly string[], timeoutMs = 60_000): Promise<CommandResult> {
    return this.run(['docker', 'exec', container, ...argv], { timeoutMs });
  }

  /** Every container (running or not) of one Compose project, as `docker ps -a` lists them. */
  async listProjectContainers(project: string): Promise<ReportedContainer[]> {
    const result = await this.run(
      ['docker', 'ps', '-a', '--no-trunc', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{json .}}'],
      { timeoutMs: 60_000 },
    );
    if (result.exitCode !== 0) throw new Error(`docker ps failed: ${lastLine(result.stderr)}`);
    return result.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => toReportedContainer(JSON.parse(line) as DockerPsLine));
  }

  /** Sources of the read-write bind mounts of the project's running containers. */
  async writableBindSources(project: string): Promise<string[]> {
    const running = await this.run(['docker', 'ps', '-q', '--no-trunc', '--filter', `label=com.docker.compose.project=${project}`], { timeoutMs: 60_000 });
    if (running.exitCode !== 0) throw new Error(`docker ps failed: ${lastLine(running.stderr)}`);
    const ids = running.stdout.split('\n').filter((line) => line.trim() !== '');
    if (ids.length === 0) return [];
    const inspected = await this.run(['docker', 'inspect', '--format', '{{json .Mounts}}', ...ids], { timeoutMs: 60_000 });
    if (inspected.exitCode !== 0) throw new Error(`docker inspect failed: ${lastLine(inspected.stderr)}`);
    return inspected.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => (JSON.parse(line) as DockerMount[] | null) ?? [])
      .filter((mount) => mount.Type === 'bind' && mount.RW)
      .map((mount) => mount.Source);
  }
}

/** The fields of one mount of `docker inspect` the daemon's check uses. */
interface DockerMount {
  Type: string;
  Source: string;
  RW: boolean;
}

/** The fields of one `docker ps --format '{{json .}}'` line the report uses. */
interface DockerPsLine {
  ID: string;
  Names: string;
  State?: string;
  Status?: string;
  Labels?: string;
}

export function toReportedContainer(line: DockerPsLine): ReportedContainer {
  const labels = parseLabelList(line.Labels ?? '');
  return {
    containerId: line.ID,
    name: line.Names.split(',')[0] ?? line.Names,
    service: labels['com.docker.compose.service'] ?? '',
    state: toContainerState(line.State),
    ...(line.Status ? { status: line.Status } : {}),
    labels,
  };
}

/**
 * `docker ps` prints labels as `k=v,k=v`. Values may themselves hold commas (Compose's
 * `depends_on` label does), so a segment without `=` continues the previous value.
 */
export function parseLabelList(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let lastKey: string | undefined;
  for (const segment of text ? text.split(',') : []) {
    const equals = segment.indexOf('=');
    if (equals > 0) {
      lastKey = segment.slice(0, equals);
      labels[lastKey] = segment.slice(equals + 1);
    } else if (lastKey !== undefined) {
      labels[lastKey] += `,${segment}`;
    }
  }
  return labels;
}

/** The last non-empty line of command output, for short error messages. */
export function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.trim() ?? '';
}
