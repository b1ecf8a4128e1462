/**
 * The runner against a scripted Docker command line (the real engine is exercised by
 * test/e2e/agent-docker.test.ts): exact argument arrays, working directories, files on disk at
 * the moment Compose reads them, and what happens on each kind of failure.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDaemonKeyPair, sealForDaemon } from '../../crypto/index.ts';
import { createLogger } from '../../lib/logger.ts';
import type { CommandFrame } from '../../contract/daemon-protocol.ts';
import { ComposeRunner } from './compose-runner.ts';
import { type CommandResult, DockerCli } from './docker-cli.ts';

const SERVER_ID = '0196a4f2-8e1c-7b3d-9f00-1234567890ab';
const DEPLOYMENT_ID = '0196a4f2-8e1c-7b3d-9f00-0000000000d1';
const COMPOSE = 'services:\n  web:\n    image: local/busybox:1\n    secrets: [api_key]\nsecrets:\n  api_key:\n    file: ./secrets/api_key\n';
const PLAINTEXT = 'plaintext-api-key-value';
const keyPair = generateDaemonKeyPair();
const identity = { serverId: SERVER_ID, daemonKeyId: 'dk_test', privateKey: keyPair.privateKey };
const seal = (value: string, publicKey = keyPair.publicKey) => sealForDaemon({ serverId: SERVER_ID, daemonKeyId: 'dk_test', publicKey }, value);

const PS_LINE = JSON.stringify({
  ID: 'c'.repeat(64),
  Names: 'shop-web-1',
  State: 'running',
  Status: 'Up 1 second',
  Labels: 'com.docker.compose.project=shop,com.docker.compose.service=web',
});

interface Call {
  argv: string;
  cwd?: string;
  files?: Record<string, { content: string; mode: number }>;
}

const tempDirs: string[] = [];
afterEach(async () => {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A runner on a fresh state dir whose Docker answers from `script` (longest argv prefix wins) and records calls. */
async function setup(script: Record<string, CommandResult> = {}) {
  const stateDir = await mkdtemp(join(tmpdir(), 'panel-runner-'));
  tempDirs.push(stateDir);
  const calls: Call[] = [];
  const answers: Record<string, CommandResult> = {
    'docker compose version --short': ok('2.26.1\n'),
    'docker ps': ok(''),
    ...script,
  };
  const docker = new DockerCli(async (argv, options = {}) => {
    const call: Call = { argv: argv.join(' '), cwd: options.cwd };
    if (options.cwd && existsSync(options.cwd)) call.files = await snapshot(options.cwd);
    calls.push(call);
    const longestPrefix = Object.keys(answers)
      .filter((prefix) => call.argv.startsWith(prefix))
      .sort((a, b) => b.length - a.length)[0];
    return longestPrefix ? answers[longestPrefix]! : ok('');
  });
  const logLines: string[] = [];
  const runner = new ComposeRunner({ stateDir, docker, identity: () => identity, logger: createLogger('debug', (line) => logLines.push(line)) });
  const projectDir = join(stateDir, 'projects', 'shop');
  return { stateDir, projectDir, calls, runner, logLines, answers };
}

const ok = (stdout: string): CommandResult => ({ exitCode: 0, stdout, stderr: '' });
const failed = (stderr: string): CommandResult => ({ exitCode: 1, stdout: '', stderr });

async function snapshot(dir: string, prefix = ''): Promise<Record<string, { content: string; mode: number }>> {
  const files: Record<string, { content: string; mode: number }> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const name = `${prefix}${entry.name}`;
    files[name] = { content: entry.isFile() ? await readFile(path, 'utf8') : '', mode: (await stat(path)).mode & 0o777 };
    if (entry.isDirectory()) Object.assign(files, await snapshot(path, `${name}/`));
  }
  return files;
}

const deployCommand = (overrides: Partial<Extract<CommandFrame, { kind: 'deploy' }>['payload']> = {}): CommandFrame => ({
  type: 'command',
  id: 'cmd-1',
  kind: 'deploy',
  payload: { deploymentId: DEPLOYMENT_ID, project: 'shop', compose: COMPOSE, secrets: [{ name: 'api_key', envelope: seal(PLAINTEXT) }], ...overrides },
});
const projectCommand = (kind: 'stop' | 'destroy', project = 'shop'): CommandFrame => ({ type: 'command', id: `cmd-${kind}`, kind, payload: { deploymentId: DEPLOYMENT_ID, project } });

describe('deploy', () => {
  test('stages, validates, swaps in, brings up and reports, with argument arrays only', async () => {
    const { runner, calls, projectDir } = await setup({ 'docker ps': ok(`${PS_LINE}\n`) });
    const outcome = await runner.execute(deployCommand());

    expect(calls.map(({ argv, cwd }) => [argv, cwd])).toEqual([
      ['docker compose version --short', undefined],
      ['docker compose -p shop -f compose.yaml config -q', `${projectDir}.staging`],
      ['docker compose -p shop -f compose.yaml up -d --remove-orphans --force-recreate', projectDir],
      ['docker ps -a --no-trunc --filter label=com.docker.compose.project=shop --format {{json .}}', undefined],
    ]);
    // What Compose validated: the compiled file and the opened secret, owner-only.
    expect(calls[1]!.files).toEqual({
      'compose.yaml': { content: COMPOSE, mode: 0o600 },
      secrets: { content: '', mode: 0o700 },
      'secrets/api_key': { content: PLAINTEXT, mode: 0o600 },
    });
    expect(await snapshot(projectDir)).toEqual(calls[1]!.files!);
    expect(existsSync(`${projectDir}.staging`)).toBe(false);
    expect(existsSync(`${projectDir}.old`)).toBe(false);

    expect(outcome.report).toEqual({
      project: 'shop',
      containers: [expect.objectContaining({ containerId: 'c'.repeat(64), name: 'shop-web-1', service: 'web', state: 'running' })],
    });
    expect(outcome.result).toEqual({ ok: true, data: { deploymentId: DEPLOYMENT_ID, project: 'shop', compose: 'v2', recreated: true, containers: 1 } });
  });

  test('services are force-recreated only when a secret changed (a running container keeps its old file)', async () => {
    const { runner, calls } = await setup();
    const upCalls = () => calls.filter((call) => call.argv.includes(' up ')).map((call) => call.argv.endsWith('--force-recreate'));
    await runner.execute(deployCommand());
    await runner.execute(deployCommand({ compose: `${COMPOSE}# comment\n` }));
    await runner.execute(deployCommand({ secrets: [{ name: 'api_key', envelope: seal('rotated') }] }));
    await runner.execute(deployCommand({ secrets: [{ name: 'api_key', envelope: seal('rotated') }, { name: 'extra', envelope: seal('x') }] }));
    await runner.execute(deployCommand({ secrets: [{ name: 'extra', envelope: seal('x') }] }));
    expect(upCalls()).toEqual([true, false, true, true, true]);
  });

  test("a platform project's state folder survives a redeploy; everything else is replaced", async () => {
    const { runner, projectDir } = await setup();
    await runner.execute(deployCommand());
    await mkdir(join(projectDir, 'state', 'data'), { recursive: true });
    await writeFile(join(projectDir, 'state', 'data', 'kept'), 'certificate');
    await writeFile(join(projectDir, 'stray'), 'x');
    await runner.execute(deployCommand(), ['state']);
    expect(await readFile(join(projectDir, 'state', 'data', 'kept'), 'utf8')).toBe('certificate');
    expect(existsSync(join(projectDir, 'stray'))).toBe(false);
    await runner.execute(deployCommand());
    expect(existsSync(join(projectDir, 'state'))).toBe(false);
  });

  test('a redeploy replaces the folder whole: a secret no longer delivered is gone', async () => {
    const { runner, projectDir } = await setup();
    await runner.execute(deployCommand());
    await runner.execute(deployCommand({ compose: 'services: {}\n', secrets: [] }));
    expect(await snapshot(projectDir)).toEqual({ 'compose.yaml': { content: 'services: {}\n', mode: 0o600 }, secrets: { content: '', mode: 0o700 } });
  });

  test('a document Compose refuses never replaces the running one and is not brought up', async () => {
    const { runner, calls, projectDir, answers } = await setup();
    await runner.execute(deployCommand());
    answers['docker compose -p shop -f compose.yaml config'] = failed('services.web Additional property imagee is not allowed');
    calls.length = 0;

    const outcome = await runner.execute(deployCommand({ compose: 'services:\n  web:\n    imagee: x\n' }));
    expect(outcome.result).toEqual({ ok: false, error: { code: 'compose_invalid', message: 'services.web Additional property imagee is not allowed' } });
    expect(calls.some((call) => call.argv.includes(' up '))).toBe(false);
    expect(await readFile(join(projectDir, 'compose.yaml'), 'utf8')).toBe(COMPOSE);
    expect(existsSync(`${projectDir}.staging`)).toBe(false);
    expect(outcome.report).toEqual({ project: 'shop', containers: [] });
  });

  test('a failing up is reported with the containers that exist', async () => {
    const { runner } = await setup({ 'docker compose -p shop -f compose.yaml up': failed('Error response from daemon: port is already allocated'), 'docker ps': ok(PS_LINE) });
    const outcome = await runner.execute(deployCommand());
    expect(outcome.result).toEqual({ ok: false, error: { code: 'compose_up_failed', message: 'Error response from daemon: port is already allocated' } });
    expect(outcome.report?.containers).toHaveLength(1);
  });

  test('a secret sealed to another key fails before anything is written', async () => {
    const { runner, calls, stateDir } = await setup();
    const foreign = seal(PLAINTEXT, generateDaemonKeyPair().publicKey);
    const outcome = await runner.execute(deployCommand({ secrets: [{ name: 'api_key', envelope: foreign }] }));
    expect(outcome.result).toMatchObject({ ok: false, error: { code: 'secret_unreadable' } });
    expect(existsSync(join(stateDir, 'projects'))).toBe(false);
    expect(calls.map((call) => call.argv)).not.toContainEqual(expect.stringContaining('config'));
  });

  test.each([['../escape'], ['.hidden'], ['a/b']])('refuses the secret name %p even if a forged frame carries it', async (name) => {
    const { runner, stateDir } = await setup();
    const outcome = await runner.execute(deployCommand({ secrets: [{ name, envelope: seal(PLAINTEXT) }] }));
    expect(outcome.result).toMatchObject({ ok: false, error: { code: 'invalid_secret_name' } });
    expect(existsSync(join(stateDir, 'escape'))).toBe(false);
  });

  test.each([['../../etc'], ['Shop'], ['-p'], ['']])('refuses the project name %p without running anything', async (project) => {
    const { runner, calls } = await setup();
    const outcome = await runner.execute(deployCommand({ project }));
    expect(outcome).toEqual({ report: null, result: { ok: false, error: expect.objectContaining({ code: 'invalid_project' }) } });
    expect(calls).toEqual([]);
  });

  test('plaintext secrets never reach a log line, even at debug level', async () => {
    const { runner, logLines } = await setup({ 'docker compose -p shop -f compose.yaml up': failed('boom') });
    await runner.execute(deployCommand());
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(PLAINTEXT);
  });

  test('uses docker-compose v1 when the v2 plugin is missing', async () => {
    const { runner, calls } = await setup({ 'docker compose version --short': failed("docker: 'compose' is not a docker command."), 'docker-compose version --short': ok('1.29.2\n') });
    const outcome = await runner.execute(deployCommand());
    expect(calls.map((call) => call.argv)).toContain('docker-compose -p shop -f compose.yaml up -d --remove-orphans --force-recreate');
    expect(outcome.result).toMatchObject({ ok: true, data: { compose: 'v1' } });
  });

  test('without any Compose, the command fails with compose_unavailable', async () => {
    const { runner } = await setup({ 'docker compose version --short': failed('no'), 'docker-compose version --short': failed('not found') });
    expect((await runner.execute(deployCommand())).result).toMatchObject({ ok: false, error: { code: 'compose_unavailable' } });
  });
});

describe('stop and destroy', () => {
  test('stop runs down in the project folder and keeps it', async () => {
    const { runner, calls, projectDir } = await setup();
    await runner.execute(deployCommand());
    calls.length = 0;
    const outcome = await runner.execute(projectCommand('stop'));
    expect(calls.map(({ argv, cwd }) => [argv, cwd])).toEqual([
      ['docker compose -p shop -f compose.yaml down', projectDir],
      ['docker ps -a --no-trunc --filter label=com.docker.compose.project=shop --format {{json .}}', undefined],
    ]);
    expect(outcome).toEqual({ report: { project: 'shop', containers: [] }, result: { ok: true, data: { deploymentId: DEPLOYMENT_ID, project: 'shop', containers: 0 } } });
    expect(existsSync(join(projectDir, 'compose.yaml'))).toBe(true);
  });

  test('destroy removes volumes and the folder', async () => {
    const { runner, calls, projectDir } = await setup();
    await runner.execute(deployCommand());
    calls.length = 0;
    const outcome = await runner.execute(projectCommand('destroy'));
    expect(calls[0]!.argv).toBe('docker compose -p shop -f compose.yaml down --volumes --remove-orphans');
    expect(outcome.result.ok).toBe(true);
    expect(existsSync(projectDir)).toBe(false);
  });

  test('a project never deployed here is stopped by label (v2 needs no file)', async () => {
    const { runner, calls } = await setup();
    await runner.execute(projectCommand('stop', 'elsewhere'));
    expect(calls[1]).toEqual({ argv: 'docker compose -p elsewhere down', cwd: undefined });
  });

  test('a failing down keeps the folder so destroy can be retried', async () => {
    const { runner, projectDir, answers } = await setup();
    await runner.execute(deployCommand());
    answers['docker compose -p shop -f compose.yaml down'] = failed('Cannot connect to the Docker daemon');
    const outcome = await runner.execute(projectCommand('destroy'));
    expect(outcome.result).toEqual({ ok: false, error: { code: 'compose_down_failed', message: 'Cannot connect to the Docker daemon' } });
    expect(existsSync(projectDir)).toBe(true);
  });
});

test('commands of one project run one after another', async () => {
  const { runner, calls } = await setup();
  await Promise.all([runner.execute(deployCommand()), runner.execute(projectCommand('stop')), runner.execute(deployCommand())]);
  const order = calls.map((call) => call.argv).filter((argv) => / (up|down) /.test(`${argv} `)).map((argv) => (argv.includes(' up ') ? 'up' : 'down'));
  expect(order).toEqual(['up', 'down', 'up']);
});
