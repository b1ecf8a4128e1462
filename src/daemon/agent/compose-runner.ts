/**
 * Runs daemon commands against the local Docker engine. Per Compose project, in
 * <stateDir>/projects/:
 *
 *   <project>/        the Compose project folder (working and project directory): where the
 *                     project's relative paths (bind mounts, env files) resolve; kept across
 *                     deploys, removed by destroy
 *   <project>.panel/  the daemon's own files, which no path of the project can name:
 *                     compose.yaml (the compiled document), an empty compose.env (Compose then
 *                     reads no .env a container could write) and secrets/<name> (0600), named in
 *                     the document as ../<project>.panel/secrets/<name> (naming.ts)
 *
 * A deploy is staged in <project>.panel.staging and checked against the Compose policy the
 * command carries (project-check.ts: the received document, Compose's own resolved model, the
 * paths on disk), swapped in by rename and only then brought up: a refused or invalid document
 * never replaces a working one and nothing starts. Plaintext secrets exist only in 0600 files:
 * never in argv, an environment, a log line or a result.
 *
 * A deploy's networks that span servers are attached to the overlay fabric (`fabric`, the fabric
 * agent) after the checks and before `up`; the policy admits exactly their bridges and subnets.
 *
 * Stop is `compose stop`: the containers stay (exited, same ids) and start again on the next
 * deploy. Destroy is `compose down --volumes`: containers, networks and volumes go, and so do the
 * project's folders; the project's fabric networks are detached when its network goes (destroy,
 * and a stop that removes). While a command runs, the project's containers are listed every
 * PROGRESS_INTERVAL_MS and each listing that differs from the last is handed to `progress`, so
 * the console watches containers start, stop or disappear one by one.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { panelFolderOf } from '../../compose/naming.ts';
import type { JsonValue } from '../../compose/values.ts';
import { type CommandFailure, type CommandFrame, PROJECT_NAME_PATTERN, type ReportedContainer, SECRET_NAME_PATTERN } from '../../contract/daemon-protocol.ts';
import { type DaemonIdentity, openAsDaemon } from '../../crypto/index.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { type ComposeCli, ComposeUnavailableError, type DockerCli, lastLine } from './docker-cli.ts';
import { checkProject } from './project-check.ts';
import type { FabricNetwork } from '../../contract/fabric.ts';

/** The commands about one Compose project (the fabric's are the fabric agent's). */
export type ProjectCommand = Exclude<CommandFrame, { kind: 'fabric' }>;
type DeployPayload = Extract<CommandFrame, { kind: 'deploy' }>['payload'];
type StopPayload = Extract<CommandFrame, { kind: 'stop' }>['payload'];
type ProjectPayload = Extract<CommandFrame, { kind: 'destroy' }>['payload'];

/** What a finished command sends back: a report of the project's containers (when they could be
 * listed) and the result. */
export interface CommandOutcome {
  report: { project: string; containers: ReportedContainer[] } | null;
  result: { ok: true; data: Record<string, unknown> } | { ok: false; error: CommandFailure };
}

export type ProjectReport = NonNullable<CommandOutcome['report']>;

/** Where a project's networks that span servers are routed and admitted (fabric/fabric-agent.ts). */
export interface ProjectFabric {
  /** Before `up`; an empty list detaches the project. Throws when this server cannot carry them. */
  attach(project: string, networks: readonly FabricNetwork[]): Promise<void>;
  /** After its networks are gone. */
  detach(project: string): Promise<void>;
}

export interface ComposeRunnerOptions {
  stateDir: string;
  docker: DockerCli;
  /** Who envelopes are sealed to; null while a local daemon has not been welcomed yet. */
  identity: () => DaemonIdentity | null;
  logger: Logger;
  /** The overlay fabric on this server; without one, a deploy with spanning networks fails. */
  fabric?: ProjectFabric;
  /** Calls `tick` every `ms` until the returned function cancels it (tests tick by hand). */
  every?: (tick: () => void, ms: number) => () => void;
}

export const PROGRESS_INTERVAL_MS = 1_500;
const defaultEvery = (tick: () => void, ms: number) => {
  const handle = setInterval(tick, ms);
  return () => clearInterval(handle);
};

const COMPOSE_FILE = 'compose.yaml';
const ENV_FILE = 'compose.env';
const SECRETS_DIR = 'secrets';
/** What a command queued by a control plane that sends no policy is held to. */
const TENANT_POLICY = { hostAccess: false, platform: false };
const UP_TIMEOUT_MS = 15 * 60_000;
const ERROR_MESSAGE_LIMIT = 2000;

/** A command failure with a stable code for the hub; the message never holds secret values. */
class CommandFailedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message.length > ERROR_MESSAGE_LIMIT ? `…${message.slice(-ERROR_MESSAGE_LIMIT)}` : message);
  }
}

export class ComposeRunner {
  private readonly projectQueues = new Map<string, Promise<unknown>>();

  constructor(private readonly options: ComposeRunnerOptions) {}

  /**
   * Runs one command; commands of one project run one after another, in arrival order.
   * `progress` gets the project's containers whenever they change while the command runs.
   */
  execute(command: ProjectCommand, progress?: (report: ProjectReport) => void): Promise<CommandOutcome> {
    const project = command.payload.project;
    const previous = this.projectQueues.get(project) ?? Promise.resolve();
    const run = previous.then(() => this.runWatched(command, progress));
    const settled = run.catch(() => undefined);
    this.projectQueues.set(project, settled);
    void settled.then(() => {
      if (this.projectQueues.get(project) === settled) this.projectQueues.delete(project);
    });
    return run;
  }

  /** The command, with its project's containers listed on every progress tick while it runs. */
  private async runWatched(command: ProjectCommand, progress: ((report: ProjectReport) => void) | undefined): Promise<CommandOutcome> {
    const project = command.payload.project;
    if (!progress || !PROJECT_NAME_PATTERN.test(project)) return this.runCommand(command);
    let finished = false;
    let listing = false;
    let last = '';
    const tick = async () => {
      if (listing || finished) return;
      listing = true;
      try {
        const report = await this.listContainers(project);
        const seen = report && JSON.stringify(report.containers.map(({ containerId, state }) => [containerId, state]));
        // A listing that lands after the command finished would arrive after its final report.
        if (report && !finished && seen !== last) {
          last = seen!;
          progress(report);
        }
      } finally {
        listing = false;
      }
    };
    const cancel = (this.options.every ?? defaultEvery)(() => void tick(), PROGRESS_INTERVAL_MS);
    try {
      return await this.runCommand(command);
    } finally {
      finished = true;
      cancel();
    }
  }

  private async runCommand(command: ProjectCommand): Promise<CommandOutcome> {
    const { logger } = this.options;
    const project = command.payload.project;
    logger.info('command started', { commandId: command.id, kind: command.kind, project, deploymentId: command.payload.deploymentId });
    let data: Record<string, unknown> | undefined;
    let failure: CommandFailure | undefined;
    try {
      assertProjectName(project);
      if (command.kind === 'deploy') data = await this.deploy(command.payload);
      else if (command.kind === 'stop') data = await this.stop(command.payload);
      else data = await this.destroy(command.payload);
    } catch (error) {
      failure = toFailure(error);
    }
    const report = PROJECT_NAME_PATTERN.test(project) ? await this.listContainers(project) : null;
    if (failure) {
      logger.warn('command failed', { commandId: command.id, kind: command.kind, project, code: failure.code, error: failure.message });
      return { report, result: { ok: false, error: failure } };
    }
    logger.info('command finished', { commandId: command.id, kind: command.kind, project, containers: report?.containers.length });
    return { report, result: { ok: true, data: { ...data, containers: report?.containers.length ?? null } } };
  }

  private async deploy(payload: DeployPayload): Promise<Record<string, unknown>> {
    const { project } = payload;
    assertProjectName(project);
    const compose = await this.compose();
    const secrets = this.openSecrets(payload.secrets);
    const { projectDir, panel, staging, old } = this.projectPaths(project);

    await rm(staging, { recursive: true, force: true });
    await mkdir(join(staging, SECRETS_DIR), { recursive: true, mode: 0o700 });
    await writeFile(join(staging, COMPOSE_FILE), payload.compose, { mode: 0o600 });
    await writeFile(join(staging, ENV_FILE), '', { mode: 0o600 });
    for (const [name, value] of secrets) await writeFile(join(staging, SECRETS_DIR, name), value, { mode: 0o600 });
    try {
      await checkProject({
        compose: payload.compose,
        project,
        projectDir,
        secretFiles: new Map([...secrets.keys()].map((name) => [name, join(panel, SECRETS_DIR, name)])),
        policy: payload.policy ?? TENANT_POLICY,
        fabricNetworks: payload.fabric ?? [],
        resolve: () => this.resolvedModel(compose, project, staging),
        writableMounts: () => this.options.docker.writableBindSources(project),
      });
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      if (error instanceof DomainError) throw new CommandFailedError('compose_policy', error.message);
      throw error;
    }
    await this.attachFabric(payload, staging);

    // A container keeps the secret file it was started with (a bind mount of the old inode), and
    // Compose does not recreate a service whose configuration is unchanged: when any secret
    // differs, every service is recreated so none keeps running with a stale value.
    const secretsChanged = !(await holdsSameSecrets(join(panel, SECRETS_DIR), secrets));
    // A daemon before <project>.panel kept compose.yaml and the secret files in the project folder.
    if (!(await exists(panel))) for (const legacy of [COMPOSE_FILE, SECRETS_DIR]) await rm(join(projectDir, legacy), { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
    if (await exists(panel)) await rename(panel, old);
    await rename(staging, panel);
    await rm(old, { recursive: true, force: true });
    await mkdir(projectDir, { recursive: true, mode: 0o700 });

    const upArgs = [...this.composeArgs(project, panel), 'up', '-d', '--remove-orphans', ...(secretsChanged ? ['--force-recreate'] : [])];
    const up = await this.runCompose(compose, upArgs, projectDir, UP_TIMEOUT_MS);
    if (up.exitCode !== 0) throw new CommandFailedError('compose_up_failed', up.stderr.trim() || `compose up exited ${up.exitCode}`);
    return { deploymentId: payload.deploymentId, project, compose: `v${compose.generation}`, recreated: secretsChanged };
  }

  /** The deploy's spanning networks routed over the fabric before `up` (none detaches the project). */
  private async attachFabric(payload: DeployPayload, staging: string): Promise<void> {
    const networks = payload.fabric ?? [];
    try {
      if (this.options.fabric) await this.options.fabric.attach(payload.project, networks);
      else if (networks.length > 0) throw new CommandFailedError('fabric_not_ready', 'this daemon runs no overlay fabric');
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      if (error instanceof CommandFailedError) throw error;
      throw new CommandFailedError((error as { code?: string }).code ?? 'fabric_apply_failed', (error as Error).message);
    }
  }

  /** Compose's own model of the staged project: `config` (JSON from v2, YAML from v1). */
  private async resolvedModel(compose: ComposeCli, project: string, staging: string): Promise<JsonValue> {
    const format = compose.generation === 2 ? ['--format', 'json'] : [];
    const config = await this.runCompose(compose, [...this.composeArgs(project, staging), 'config', ...format], staging);
    if (config.exitCode !== 0) throw new CommandFailedError('compose_invalid', config.stderr.trim() || `compose config exited ${config.exitCode}`);
    try {
      return (compose.generation === 2 ? JSON.parse(config.stdout) : parse(config.stdout)) as JsonValue;
    } catch (error) {
      throw new CommandFailedError('compose_invalid', `compose config printed no readable model: ${(error as Error).message}`);
    }
  }

  /** `-p`, the document in `panelDir` and its empty env file, the project folder. */
  private composeArgs(project: string, panelDir: string): string[] {
    const { projectDir } = this.projectPaths(project);
    return ['-p', project, '-f', join(panelDir, COMPOSE_FILE), '--project-directory', projectDir, '--env-file', join(panelDir, ENV_FILE)];
  }

  /**
   * `stop`: the containers stay, exited, with their ids; networks, volumes and the folder are
   * kept. With `remove` (a server the placement dropped), `down`: the containers go too.
   */
  private async stop(payload: StopPayload): Promise<Record<string, unknown>> {
    if (payload.remove) {
      await this.projectCommand(payload.project, ['down'], 'compose_down_failed');
      await this.options.fabric?.detach(payload.project);
    } else {
      await this.projectCommand(payload.project, ['stop'], 'compose_stop_failed');
    }
    return { deploymentId: payload.deploymentId, project: payload.project };
  }

  /** `down --volumes`, then the project folder, the daemon's files and any interrupted staging are removed. */
  private async destroy(payload: ProjectPayload): Promise<Record<string, unknown>> {
    await this.projectCommand(payload.project, ['down', '--volumes', '--remove-orphans'], 'compose_down_failed');
    await this.options.fabric?.detach(payload.project);
    const { projectDir, panel, staging, old } = this.projectPaths(payload.project);
    for (const path of [projectDir, panel, staging, old]) await rm(path, { recursive: true, force: true });
    return { deploymentId: payload.deploymentId, project: payload.project };
  }

  private async projectCommand(project: string, command: string[], failureCode: string): Promise<void> {
    assertProjectName(project);
    const compose = await this.compose();
    const { projectDir, panel } = this.projectPaths(project);
    // With the document, Compose reads it (v1 needs one); without, v2 finds the project by label.
    const hasDocument = await exists(join(panel, COMPOSE_FILE));
    const args = [...(hasDocument ? this.composeArgs(project, panel) : ['-p', project]), ...command];
    const run = await this.runCompose(compose, args, hasDocument ? projectDir : undefined, UP_TIMEOUT_MS);
    if (run.exitCode !== 0) throw new CommandFailedError(failureCode, run.stderr.trim() || `compose ${command[0]} exited ${run.exitCode}`);
  }

  private async compose() {
    try {
      return await this.options.docker.compose();
    } catch (error) {
      if (error instanceof ComposeUnavailableError) throw new CommandFailedError('compose_unavailable', error.message);
      throw error;
    }
  }

  private runCompose(compose: { command: readonly string[] }, args: string[], cwd: string | undefined, timeoutMs?: number) {
    return this.options.docker.run([...compose.command, ...args], { cwd, timeoutMs });
  }

  /** Opens every envelope before anything touches the disk: one bad secret fails the deploy. */
  private openSecrets(secrets: DeployPayload['secrets']): Map<string, string> {
    const identity = this.options.identity();
    if (!identity) throw new CommandFailedError('secret_unreadable', 'the server id is not known yet (no welcome received)');
    const opened = new Map<string, string>();
    for (const { name, envelope } of secrets) {
      if (!SECRET_NAME_PATTERN.test(name) || opened.has(name)) {
        throw new CommandFailedError('invalid_secret_name', `secret name "${name.slice(0, 64)}" is not one unique file name`);
      }
      try {
        opened.set(name, openAsDaemon(identity, envelope));
      } catch {
        throw new CommandFailedError('secret_unreadable', `secret "${name}" is not sealed to this daemon (server ${identity.serverId}, key ${identity.daemonKeyId})`);
      }
    }
    return opened;
  }

  private async listContainers(project: string): Promise<CommandOutcome['report']> {
    try {
      return { project, containers: await this.options.docker.listProjectContainers(project) };
    } catch (error) {
      this.options.logger.warn('cannot list containers', { project, error: (error as Error).message });
      return null;
    }
  }

  private projectPaths(project: string) {
    const projects = resolve(this.options.stateDir, 'projects');
    const panel = join(projects, panelFolderOf(project));
    return { projectDir: join(projects, project), panel, staging: `${panel}.staging`, old: `${panel}.old` };
  }
}

function assertProjectName(project: string): void {
  if (!PROJECT_NAME_PATTERN.test(project)) {
    throw new CommandFailedError('invalid_project', `project name "${project.slice(0, 64)}" must match ${PROJECT_NAME_PATTERN.source}`);
  }
}

function toFailure(error: unknown): CommandFailure {
  if (error instanceof CommandFailedError) return { code: error.code, message: error.message };
  // File system and spawn errors: the message names a path or a syscall, never a secret value.
  return { code: 'internal_error', message: lastLine((error as Error).message ?? String(error)) };
}

/** Whether `dir` holds exactly these secret files with these contents. */
async function holdsSameSecrets(dir: string, secrets: Map<string, string>): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return secrets.size === 0;
  }
  if (names.length !== secrets.size) return false;
  for (const name of names) {
    const wanted = secrets.get(name);
    if (wanted === undefined || (await readFile(join(dir, name), 'utf8')) !== wanted) return false;
  }
  return true;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
