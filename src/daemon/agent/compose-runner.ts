/**
 * Runs daemon commands against the local Docker engine. Project files live in
 * <stateDir>/projects/<project>/ (compose.yaml plus secrets/<name>, which the compiled Compose
 * file references as ./secrets/<name>). A deploy is staged in <project>.staging, validated with
 * `compose config -q`, swapped in by rename and only then brought up, so a bad document never
 * replaces a working one. Plaintext secrets exist only in 0600 files: never in argv, an
 * environment, a log line or a result.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type DaemonIdentity, openAsDaemon } from '../../crypto/index.ts';
import type { Logger } from '../../lib/logger.ts';
import { type CommandFailure, type CommandFrame, PROJECT_NAME_PATTERN, type ReportedContainer, SECRET_NAME_PATTERN } from '../../contract/daemon-protocol.ts';
import { ComposeUnavailableError, type DockerCli, lastLine } from './docker-cli.ts';

type DeployPayload = Extract<CommandFrame, { kind: 'deploy' }>['payload'];
type ProjectPayload = Extract<CommandFrame, { kind: 'stop' }>['payload'];

/** What a finished command sends back: a report of the project's containers (when they could be
 * listed) and the result. */
export interface CommandOutcome {
  report: { project: string; containers: ReportedContainer[] } | null;
  result: { ok: true; data: Record<string, unknown> } | { ok: false; error: CommandFailure };
}

export interface ComposeRunnerOptions {
  stateDir: string;
  docker: DockerCli;
  /** Who envelopes are sealed to; null while a local daemon has not been welcomed yet. */
  identity: () => DaemonIdentity | null;
  logger: Logger;
}

const COMPOSE_FILE = 'compose.yaml';
const SECRETS_DIR = 'secrets';
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
   * `keep` names folders of the project that survive a redeploy (a platform project's state,
   * such as the ingress's certificates); every other file is replaced whole, as for any project.
   */
  execute(command: CommandFrame, keep: readonly string[] = []): Promise<CommandOutcome> {
    const project = command.payload.project;
    const previous = this.projectQueues.get(project) ?? Promise.resolve();
    const run = previous.then(() => this.runCommand(command, keep));
    const settled = run.catch(() => undefined);
    this.projectQueues.set(project, settled);
    void settled.then(() => {
      if (this.projectQueues.get(project) === settled) this.projectQueues.delete(project);
    });
    return run;
  }

  private async runCommand(command: CommandFrame, keep: readonly string[]): Promise<CommandOutcome> {
    const { logger } = this.options;
    const project = command.payload.project;
    logger.info('command started', { commandId: command.id, kind: command.kind, project, deploymentId: command.payload.deploymentId });
    let data: Record<string, unknown> | undefined;
    let failure: CommandFailure | undefined;
    try {
      assertProjectName(project);
      if (command.kind === 'deploy') data = await this.deploy(command.payload, keep);
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

  private async deploy(payload: DeployPayload, keep: readonly string[]): Promise<Record<string, unknown>> {
    assertProjectName(payload.project);
    const compose = await this.compose();
    const secrets = this.openSecrets(payload.secrets);
    const { current, staging, old } = this.projectPaths(payload.project);

    await rm(staging, { recursive: true, force: true });
    await mkdir(join(staging, SECRETS_DIR), { recursive: true, mode: 0o700 });
    await writeFile(join(staging, COMPOSE_FILE), payload.compose, { mode: 0o600 });
    for (const [name, value] of secrets) await writeFile(join(staging, SECRETS_DIR, name), value, { mode: 0o600 });

    const config = await this.runCompose(compose, ['-p', payload.project, '-f', COMPOSE_FILE, 'config', '-q'], staging);
    if (config.exitCode !== 0) {
      await rm(staging, { recursive: true, force: true });
      throw new CommandFailedError('compose_invalid', config.stderr.trim() || `compose config exited ${config.exitCode}`);
    }

    // A container keeps the secret file it was started with (a bind mount of the old inode), and
    // Compose does not recreate a service whose configuration is unchanged: when any secret
    // differs, every service is recreated so none keeps running with a stale value.
    const secretsChanged = !(await holdsSameSecrets(join(current, SECRETS_DIR), secrets));
    await rm(old, { recursive: true, force: true });
    if (await exists(current)) await rename(current, old);
    await rename(staging, current);
    for (const folder of keep) if (await exists(join(old, folder))) await rename(join(old, folder), join(current, folder));
    await rm(old, { recursive: true, force: true });

    const upArgs = ['-p', payload.project, '-f', COMPOSE_FILE, 'up', '-d', '--remove-orphans', ...(secretsChanged ? ['--force-recreate'] : [])];
    const up = await this.runCompose(compose, upArgs, current, UP_TIMEOUT_MS);
    if (up.exitCode !== 0) throw new CommandFailedError('compose_up_failed', up.stderr.trim() || `compose up exited ${up.exitCode}`);
    return { deploymentId: payload.deploymentId, project: payload.project, compose: `v${compose.generation}`, recreated: secretsChanged };
  }

  /** `down`: containers and networks removed, volumes and the project folder kept. */
  private async stop(payload: ProjectPayload): Promise<Record<string, unknown>> {
    await this.down(payload.project, []);
    return { deploymentId: payload.deploymentId, project: payload.project };
  }

  /** `down --volumes`, then the project folder (and any interrupted staging) is removed. */
  private async destroy(payload: ProjectPayload): Promise<Record<string, unknown>> {
    await this.down(payload.project, ['--volumes', '--remove-orphans']);
    const { current, staging, old } = this.projectPaths(payload.project);
    for (const path of [current, staging, old]) await rm(path, { recursive: true, force: true });
    return { deploymentId: payload.deploymentId, project: payload.project };
  }

  private async down(project: string, flags: string[]): Promise<void> {
    assertProjectName(project);
    const compose = await this.compose();
    const { current } = this.projectPaths(project);
    // With the folder, Compose reads the file (v1 needs one); without, v2 finds the project by label.
    const hasFolder = await exists(join(current, COMPOSE_FILE));
    const args = ['-p', project, ...(hasFolder ? ['-f', COMPOSE_FILE] : []), 'down', ...flags];
    const down = await this.runCompose(compose, args, hasFolder ? current : undefined, UP_TIMEOUT_MS);
    if (down.exitCode !== 0) throw new CommandFailedError('compose_down_failed', down.stderr.trim() || `compose down exited ${down.exitCode}`);
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
    const current = join(this.options.stateDir, 'projects', project);
    return { current, staging: `${current}.staging`, old: `${current}.old` };
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
