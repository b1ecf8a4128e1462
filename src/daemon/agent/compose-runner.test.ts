/**
 * The runner against a scripted Docker command line (the real engine is exercised by
 * test/e2e/agent-docker.test.ts, the check against the real Compose by
 * project-check.security.test.ts): exact argument arrays, working directories, files on disk at
 * the moment Compose reads them, the daemon's own policy check, and each kind of failure.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { secretFileReference } from '../../compose/naming.ts';
import { isMapping, type JsonObject } from '../../compose/values.ts';
import type { CommandFrame } from '../../contract/daemon-protocol.ts';
import { generateDaemonKeyPair, sealForDaemon } from '../../crypto/index.ts';
import { createLogger } from '../../lib/logger.ts';
import { ComposeRunner, type ProjectCommand, type ProjectFabric } from './compose-runner.ts';
import { type CommandResult, DockerCli } from './docker-cli.ts';

const SERVER_ID = '0196a4f2-8e1c-7b3d-9f00-1234567890ab';
const DEPLOYMENT_ID = '0196a4f2-8e1c-7b3d-9f00-0000000000d1';
const COMPOSE = `services:\n  web:\n    image: local/busybox:1\n    secrets: [api_key]\nsecrets:\n  api_key:\n    file: ${secretFileReference('shop', 'api_key')}\n`;
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

type Answer = CommandResult | ((argv: string[]) => CommandResult | Promise<CommandResult>);

const tempDirs: string[] = [];
afterEach(async () => {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * What `compose config` prints for the staged document, as far as these tests need: the document
 * itself with its relative paths made absolute against --project-directory.
 */
function resolvedLikeCompose(argv: string[]): CommandResult {
  const file = argv[argv.indexOf('-f') + 1]!;
  const projectDir = argv[argv.indexOf('--project-directory') + 1]!;
  const model = parse(readFileSync(file, 'utf8')) as JsonObject;
  const absolute = (path: string) => (path.startsWith('/') ? path : resolve(projectDir, path));
  for (const secret of Object.values(isMapping(model.secrets) ? model.secrets : {})) {
    if (isMapping(secret) && typeof secret.file === 'string') secret.file = absolute(secret.file);
  }
  for (const service of Object.values(isMapping(model.services) ? model.services : {})) {
    if (!isMapping(service) || !Array.isArray(service.volumes)) continue;
    service.volumes = service.volumes.map((volume) => {
      const [source, target] = String(volume).split(':');
      return { type: 'bind', source: absolute(source!), target: target! };
    });
  }
  return ok(JSON.stringify(model));
}

/** A runner on a fresh state dir whose Docker answers from `script` (the longest key found in the argv wins) and records calls. */
async function setup(script: Record<string, Answer> = {}, fabric?: ProjectFabric) {
  const stateDir = await mkdtemp(join(tmpdir(), 'panel-runner-'));
  tempDirs.push(stateDir);
  const calls: Call[] = [];
  const answers: Record<string, Answer> = {
    'docker compose version --short': ok('2.26.1\n'),
    ' config': resolvedLikeCompose,
    'docker ps': ok(''),
    ...script,
  };
  const docker = new DockerCli(async (argv, options = {}) => {
    const call: Call = { argv: argv.join(' '), cwd: options.cwd };
    if (options.cwd && existsSync(options.cwd)) call.files = await snapshot(options.cwd);
    calls.push(call);
    const key = Object.keys(answers)
      .filter((candidate) => call.argv.includes(candidate))
      .sort((a, b) => b.length - a.length)[0];
    const answer = key === undefined ? ok('') : answers[key]!;
    return typeof answer === 'function' ? answer([...argv]) : answer;
  });
  const logLines: string[] = [];
  // Progress ticks run only when a test calls them: nothing waits on a clock.
  const ticks: (() => void)[] = [];
  const every = (tick: () => void) => {
    ticks.push(tick);
    return () => ticks.splice(ticks.indexOf(tick), 1);
  };
  const runner = new ComposeRunner({ stateDir, docker, fabric, identity: () => identity, logger: createLogger('debug', (line) => logLines.push(line)), every });
  const projectDir = join(stateDir, 'projects', 'shop');
  const panelDir = `${projectDir}.panel`;
  return { stateDir, projectDir, panelDir, calls, runner, logLines, answers, ticks };
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

type DeployPayload = Extract<CommandFrame, { kind: 'deploy' }>['payload'];

const deployCommand = (overrides: Partial<DeployPayload> = {}): ProjectCommand => ({
  type: 'command',
  id: 'cmd-1',
  kind: 'deploy',
  payload: { deploymentId: DEPLOYMENT_ID, project: 'shop', compose: COMPOSE, secrets: [{ name: 'api_key', envelope: seal(PLAINTEXT) }], ...overrides },
});
const projectCommand = (kind: 'stop' | 'destroy', project = 'shop'): ProjectCommand => ({ type: 'command', id: `cmd-${kind}`, kind, payload: { deploymentId: DEPLOYMENT_ID, project } });
const composeArgs = (dir: string, projectDir: string) => `-p shop -f ${dir}/compose.yaml --project-directory ${projectDir} --env-file ${dir}/compose.env`;
const upCalls = (calls: Call[]) => calls.filter((call) => call.argv.includes(' up '));

describe('deploy', () => {
  test('stages, checks, swaps in, brings up in the project folder and reports, with argument arrays only', async () => {
    const { runner, calls, projectDir, panelDir } = await setup({ 'docker ps -a': ok(`${PS_LINE}\n`) });
    const outcome = await runner.execute(deployCommand());

    const staging = `${panelDir}.staging`;
    expect(calls.map(({ argv, cwd }) => [argv, cwd])).toEqual([
      ['docker compose version --short', undefined],
      [`docker compose ${composeArgs(staging, projectDir)} config --format json`, staging],
      ['docker ps -q --no-trunc --filter label=com.docker.compose.project=shop', undefined],
      [`docker compose ${composeArgs(panelDir, projectDir)} up -d --remove-orphans --force-recreate`, projectDir],
      ['docker ps -a --no-trunc --filter label=com.docker.compose.project=shop --format {{json .}}', undefined],
    ]);
    // What Compose read: the compiled file, an empty env file and the opened secret, owner-only.
    expect(calls[1]!.files).toEqual({
      'compose.env': { content: '', mode: 0o600 },
      'compose.yaml': { content: COMPOSE, mode: 0o600 },
      secrets: { content: '', mode: 0o700 },
      'secrets/api_key': { content: PLAINTEXT, mode: 0o600 },
    });
    expect(await snapshot(panelDir)).toEqual(calls[1]!.files!);
    // The project folder holds nothing of the daemon's: no path of the project reaches the secret.
    expect(await snapshot(projectDir)).toEqual({});
    expect(existsSync(staging)).toBe(false);
    expect(existsSync(`${panelDir}.old`)).toBe(false);

    expect(outcome.report).toEqual({
      project: 'shop',
      containers: [expect.objectContaining({ containerId: 'c'.repeat(64), name: 'shop-web-1', service: 'web', state: 'running' })],
    });
    expect(outcome.result).toEqual({ ok: true, data: { deploymentId: DEPLOYMENT_ID, project: 'shop', compose: 'v2', recreated: true, containers: 1 } });
  });

  test('services are force-recreated only when a secret changed (a running container keeps its old file)', async () => {
    const { runner, calls } = await setup();
    await runner.execute(deployCommand());
    await runner.execute(deployCommand({ compose: `${COMPOSE}# comment\n` }));
    await runner.execute(deployCommand({ secrets: [{ name: 'api_key', envelope: seal('rotated') }] }));
    await runner.execute(deployCommand({ secrets: [{ name: 'api_key', envelope: seal('rotated') }, { name: 'extra', envelope: seal('x') }] }));
    await runner.execute(deployCommand({ compose: 'services: {}\n', secrets: [{ name: 'extra', envelope: seal('x') }] }));
    expect(upCalls(calls).map((call) => call.argv.endsWith('--force-recreate'))).toEqual([true, false, true, true, true]);
  });

  test("a redeploy replaces the daemon's folder whole (a secret no longer delivered is gone) and keeps the project's files", async () => {
    const { runner, projectDir, panelDir } = await setup();
    await runner.execute(deployCommand());
    await writeFile(join(projectDir, 'uploads.db'), 'tenant data');
    await runner.execute(deployCommand({ compose: 'services: {}\n', secrets: [] }));
    expect(await snapshot(panelDir)).toEqual({
      'compose.env': { content: '', mode: 0o600 },
      'compose.yaml': { content: 'services: {}\n', mode: 0o600 },
      secrets: { content: '', mode: 0o700 },
    });
    expect(await readFile(join(projectDir, 'uploads.db'), 'utf8')).toBe('tenant data');
  });

  test('the files a daemon before <project>.panel kept in the project folder are removed', async () => {
    const { runner, projectDir } = await setup();
    await mkdir(join(projectDir, 'secrets'), { recursive: true });
    await writeFile(join(projectDir, 'secrets', 'api_key'), 'old plaintext');
    await writeFile(join(projectDir, 'compose.yaml'), COMPOSE);
    await writeFile(join(projectDir, 'data.txt'), 'kept');
    expect((await runner.execute(deployCommand())).result.ok).toBe(true);
    expect(await snapshot(projectDir)).toEqual({ 'data.txt': { content: 'kept', mode: expect.any(Number) } });
  });

  test('a document Compose refuses never replaces the running one and is not brought up', async () => {
    const { runner, calls, panelDir, answers } = await setup();
    await runner.execute(deployCommand());
    answers[' config'] = failed('services.web Additional property imagee is not allowed');
    calls.length = 0;

    const outcome = await runner.execute(deployCommand({ compose: 'services:\n  web:\n    image: x\n' }));
    expect(outcome.result).toEqual({ ok: false, error: { code: 'compose_invalid', message: 'services.web Additional property imagee is not allowed' } });
    expect(upCalls(calls)).toEqual([]);
    expect(await readFile(join(panelDir, 'compose.yaml'), 'utf8')).toBe(COMPOSE);
    expect(existsSync(`${panelDir}.staging`)).toBe(false);
    expect(outcome.report).toEqual({ project: 'shop', containers: [] });
  });

  test('a crafted command with a host bind is refused by the daemon with the path; nothing is run or replaced', async () => {
    const { runner, calls, panelDir } = await setup();
    await runner.execute(deployCommand());
    calls.length = 0;
    const outcome = await runner.execute(deployCommand({ compose: 'services:\n  web:\n    image: x\n    volumes: ["/var/lib/panel-daemon:/keys"]\n' }));
    expect(outcome.result).toEqual({
      ok: false,
      error: { code: 'compose_policy', message: expect.stringMatching(/^services\.web\.volumes\.0: "\/var\/lib\/panel-daemon" is outside the project folder; this needs host access/) },
    });
    expect(calls.map((call) => call.argv).filter((argv) => argv.includes(' config') || argv.includes(' up '))).toEqual([]);
    expect(await readFile(join(panelDir, 'compose.yaml'), 'utf8')).toBe(COMPOSE);
    expect(existsSync(`${panelDir}.staging`)).toBe(false);
  });

  test("Compose's resolved model is checked too: a host path only Compose resolves is refused", async () => {
    const { runner, calls } = await setup({
      ' config': ok(JSON.stringify({ name: 'shop', services: { web: { image: 'x', volumes: [{ type: 'bind', source: '/etc', target: '/etc' }] } } })),
    });
    const outcome = await runner.execute(deployCommand({ compose: 'services:\n  web:\n    image: x\n', secrets: [] }));
    expect(outcome.result).toMatchObject({ ok: false, error: { code: 'compose_policy', message: expect.stringMatching(/^services\.web\.volumes\.0\.source: "\/etc" is outside the project folder/) } });
    expect(upCalls(calls)).toEqual([]);
  });

  test('the host access a command carries lets host settings through, with no look at the disk', async () => {
    const { runner, calls } = await setup();
    const compose = 'services:\n  web:\n    image: x\n    privileged: true\n    volumes: ["/srv:/srv"]\n';
    const outcome = await runner.execute(deployCommand({ compose, secrets: [], policy: { hostAccess: true, platform: false } }));
    expect(outcome.result.ok).toBe(true);
    expect(calls.some((call) => call.argv.startsWith('docker ps -q'))).toBe(false);
    expect((await runner.execute(deployCommand({ compose, secrets: [], policy: { hostAccess: false, platform: true } }))).result).toMatchObject({ ok: false, error: { code: 'compose_policy' } });
  });

  test('a bind source that runs through a symbolic link is refused', async () => {
    const { runner, projectDir } = await setup();
    await mkdir(projectDir, { recursive: true });
    await symlink('/etc', join(projectDir, 'data'));
    const outcome = await runner.execute(deployCommand({ compose: 'services:\n  web:\n    image: x\n    volumes: ["./data/conf:/conf:ro"]\n', secrets: [] }));
    expect(outcome.result).toMatchObject({ ok: false, error: { code: 'compose_policy', message: expect.stringContaining(`runs through the symbolic link ${join(projectDir, 'data')}`) } });
  });

  test('a path inside a folder a running container can write is refused', async () => {
    const { runner, projectDir, answers } = await setup({ 'docker ps -q': ok('d'.repeat(64)) });
    answers['docker inspect'] = ok(`${JSON.stringify([{ Type: 'bind', Source: join(projectDir, 'shared'), RW: true }])}\n`);
    const outcome = await runner.execute(deployCommand({ compose: 'services:\n  web:\n    image: x\n    volumes: ["./shared/conf:/conf:ro"]\n', secrets: [] }));
    expect(outcome.result).toMatchObject({ ok: false, error: { code: 'compose_policy', message: expect.stringContaining('which a container can write') } });
  });

  test('a failing up is reported with the containers that exist', async () => {
    const { runner } = await setup({ ' up ': failed('Error response from daemon: port is already allocated'), 'docker ps -a': ok(PS_LINE) });
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
    const { runner, logLines } = await setup({ ' up ': failed('boom') });
    await runner.execute(deployCommand());
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(PLAINTEXT);
  });

  test('uses docker-compose v1 when the v2 plugin is missing (its config prints YAML)', async () => {
    const { runner, calls, projectDir, panelDir } = await setup({
      'docker compose version --short': failed("docker: 'compose' is not a docker command."),
      'docker-compose version --short': ok('1.29.2\n'),
    });
    const outcome = await runner.execute(deployCommand());
    expect(calls.map((call) => call.argv)).toContain(`docker-compose ${composeArgs(`${panelDir}.staging`, projectDir)} config`);
    expect(calls.map((call) => call.argv)).toContain(`docker-compose ${composeArgs(panelDir, projectDir)} up -d --remove-orphans --force-recreate`);
    expect(outcome.result).toMatchObject({ ok: true, data: { compose: 'v1' } });
  });

  test('without any Compose, the command fails with compose_unavailable', async () => {
    const { runner } = await setup({ 'docker compose version --short': failed('no'), 'docker-compose version --short': failed('not found') });
    expect((await runner.execute(deployCommand())).result).toMatchObject({ ok: false, error: { code: 'compose_unavailable' } });
  });
});

describe('stop and destroy', () => {
  test('stop runs compose stop in the project folder (containers kept) and keeps both folders', async () => {
    const { runner, calls, projectDir, panelDir } = await setup();
    await runner.execute(deployCommand());
    calls.length = 0;
    const outcome = await runner.execute(projectCommand('stop'));
    expect(calls.map(({ argv, cwd }) => [argv, cwd])).toEqual([
      [`docker compose ${composeArgs(panelDir, projectDir)} stop`, projectDir],
      ['docker ps -a --no-trunc --filter label=com.docker.compose.project=shop --format {{json .}}', undefined],
    ]);
    expect(outcome.result).toEqual({ ok: true, data: { deploymentId: DEPLOYMENT_ID, project: 'shop', containers: 0 } });
    expect(existsSync(join(panelDir, 'compose.yaml'))).toBe(true);
    expect(existsSync(projectDir)).toBe(true);
  });

  test('a stop with remove (a server the placement dropped) runs compose down', async () => {
    const { runner, calls, projectDir, panelDir } = await setup();
    await runner.execute(deployCommand());
    calls.length = 0;
    const command: CommandFrame = { type: 'command', id: 'cmd-drop', kind: 'stop', payload: { deploymentId: DEPLOYMENT_ID, project: 'shop', remove: true } };
    expect((await runner.execute(command)).result.ok).toBe(true);
    expect(calls[0]!.argv).toBe(`docker compose ${composeArgs(panelDir, projectDir)} down`);
  });

  test("destroy removes volumes, the project folder and the daemon's files", async () => {
    const { runner, calls, projectDir, panelDir } = await setup();
    await runner.execute(deployCommand());
    calls.length = 0;
    const outcome = await runner.execute(projectCommand('destroy'));
    expect(calls[0]!.argv).toBe(`docker compose ${composeArgs(panelDir, projectDir)} down --volumes --remove-orphans`);
    expect(outcome.result.ok).toBe(true);
    expect(existsSync(projectDir)).toBe(false);
    expect(existsSync(panelDir)).toBe(false);
    expect(await readdir(dirname(projectDir))).toEqual([]);
  });

  test('a project never deployed here is stopped by label (v2 needs no file)', async () => {
    const { runner, calls } = await setup();
    await runner.execute(projectCommand('stop', 'elsewhere'));
    expect(calls[1]).toEqual({ argv: 'docker compose -p elsewhere stop', cwd: undefined });
  });

  test('a failing down keeps the folders so destroy can be retried', async () => {
    const { runner, projectDir, panelDir, answers } = await setup();
    await runner.execute(deployCommand());
    answers[' down'] = failed('Cannot connect to the Docker daemon');
    const outcome = await runner.execute(projectCommand('destroy'));
    expect(outcome.result).toEqual({ ok: false, error: { code: 'compose_down_failed', message: 'Cannot connect to the Docker daemon' } });
    expect(existsSync(projectDir)).toBe(true);
    expect(existsSync(panelDir)).toBe(true);
  });
});

test('while a command runs, each changed listing of its containers is handed to progress; none after it finished', async () => {
  const { runner, answers, ticks } = await setup();
  await runner.execute(deployCommand());
  let release: (() => void) | undefined;
  answers[' stop'] = () => new Promise<CommandResult>((resolve) => (release = () => resolve(ok(''))));
  const progress: string[][] = [];
  const listed = (...states: string[]) => ok(states.map((state, i) => PS_LINE.replace('"running"', `"${state}"`).replace('c'.repeat(64), `${i}`.repeat(64))).join('\n'));
  const running = runner.execute(projectCommand('stop'), (report) => progress.push(report.containers.map((item) => item.state)));
  while (!release) await Bun.sleep(0);
  const tick = async () => {
    ticks[0]!();
    for (let i = 0; i < 5; i++) await Bun.sleep(0);
  };
  answers['docker ps'] = listed('running', 'running');
  await tick();
  await tick(); // unchanged: not sent again
  answers['docker ps'] = listed('exited', 'running');
  await tick();
  answers['docker ps'] = listed('exited', 'exited');
  release();
  const outcome = await running;
  expect(progress).toEqual([['running', 'running'], ['exited', 'running']]);
  expect(outcome.report?.containers.map((item) => item.state)).toEqual(['exited', 'exited']);
  expect(ticks).toEqual([]);
});

test('commands of one project run one after another', async () => {
  const { runner, calls } = await setup();
  await Promise.all([runner.execute(deployCommand()), runner.execute(projectCommand('stop')), runner.execute(deployCommand())]);
  const order = calls.map((call) => call.argv).filter((argv) => / (up|stop) /.test(`${argv} `)).map((argv) => (argv.includes(' up ') ? 'up' : 'stop'));
  expect(order).toEqual(['up', 'stop', 'up']);
});

describe('networks spanning servers (the overlay fabric)', () => {
  const NETWORKS = [{ network: 'mesh', bridge: 'pnf1', subnet: '10.210.1.0/24', internal: false, peers: [{ serverId: SERVER_ID, subnet: '10.210.2.0/24' }] }];
  const MESHED = `services:\n  web:\n    image: local/busybox:1\n    networks: {mesh: {ipv4_address: 10.210.1.2}}\n    extra_hosts: ["api:10.210.2.2"]\nnetworks:\n  mesh:\n    driver: bridge\n    driver_opts: {com.docker.network.bridge.name: pnf1, com.docker.network.bridge.enable_ip_masquerade: "false", com.docker.network.driver.mtu: "1420", com.docker.network.bridge.gateway_mode_ipv4: routed}\n    ipam: {config: [{subnet: 10.210.1.0/24}]}\n`;

  /** A fabric that records its calls among the Compose subcommands run so far. */
  function recordingFabric(calls: () => Call[]) {
    const events: string[] = [];
    const seen = () => calls().splice(0).flatMap((call) => call.argv.match(/ (config|up|down|stop)( |$)/)?.[1] ?? []);
    const fabric: ProjectFabric = {
      attach: async (project, networks) => void events.push(...seen(), `attach ${project} [${networks.map((network) => network.bridge).join(',')}]`),
      detach: async (project) => void events.push(...seen(), `detach ${project}`),
    };
    return { fabric, events, seen };
  }

  test('checked by the policy with the bridge and subnet the command names, attached before up; destroy detaches', async () => {
    let calls: Call[] = [];
    const { fabric, events, seen } = recordingFabric(() => calls);
    const runner = await setup({}, fabric);
    calls = runner.calls;
    expect((await runner.runner.execute(deployCommand({ compose: MESHED, secrets: [], fabric: NETWORKS }))).result.ok).toBe(true);
    expect((await runner.runner.execute(deployCommand({ compose: COMPOSE }))).result.ok).toBe(true);
    await runner.runner.execute(projectCommand('stop'));
    await runner.runner.execute(projectCommand('destroy'));
    events.push(...seen());
    expect(events).toEqual(['config', 'attach shop [pnf1]', 'up', 'config', 'attach shop []', 'up', 'stop', 'down', 'detach shop']);
  });

  test('the same bridge and subnet without the command naming them are refused by the policy, and nothing is attached', async () => {
    let calls: Call[] = [];
    const { fabric, events } = recordingFabric(() => calls);
    const runner = await setup({}, fabric);
    calls = runner.calls;
    const outcome = await runner.runner.execute(deployCommand({ compose: MESHED, secrets: [] }));
    expect(outcome.result).toMatchObject({ ok: false, error: { code: 'compose_policy' } });
    expect((outcome.result as { error: { message: string } }).error.message).toContain('networks.mesh.driver_opts.com.docker.network.bridge.name');
    expect(events).toEqual([]);
  });

  test('a server that cannot carry them fails the deploy before up', async () => {
    const fabric: ProjectFabric = {
      attach: async () => {
        throw Object.assign(new Error('this server has no fabric configuration yet'), { code: 'fabric_not_ready' });
      },
      detach: async () => {},
    };
    const { runner, calls, panelDir } = await setup({}, fabric);
    const outcome = await runner.execute(deployCommand({ compose: MESHED, secrets: [], fabric: NETWORKS }));
    expect(outcome.result).toEqual({ ok: false, error: { code: 'fabric_not_ready', message: 'this server has no fabric configuration yet' } });
    expect(upCalls(calls)).toEqual([]);
    expect(existsSync(`${panelDir}.staging`)).toBe(false);
    const withoutFabric = await setup();
    expect((await withoutFabric.runner.execute(deployCommand({ compose: MESHED, secrets: [], fabric: NETWORKS }))).result).toMatchObject({ ok: false, error: { code: 'fabric_not_ready' } });
  });
});
