/**
 * The daemon's own Compose policy on a real engine (../shared/tools/real-docker.sh): a real
 * `panel daemon run --local` process gets its commands from a scripted hub on the unix socket,
 * as a control plane (or anything that reached the daemon's socket) would send them.
 *
 * - A document with a relative bind mount deploys under the tenant policy, and the host folder
 *   the container writes lies inside the environment's project folder.
 * - A crafted command with a host bind, or with any other key the tenant policy refuses
 *   (bypassing the control plane's checks), is refused by the daemon with the path, and nothing
 *   starts.
 * - `extends` is resolved by Compose inside the project folder: a service of the same document
 *   always; a file in the project folder only with host access (without, the daemon refuses
 *   `extends.file` and the running deploy stays).
 *
 * Skipped with a printed reason only when the engine cannot start.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerWebSocket, Subprocess } from 'bun';
import { type CommandFrame, encodeFrame, type Frame, parseFrame, type ResultFrame } from '../../src/contract/daemon-protocol.ts';
import { ensureLocalDaemonCredential } from '../../src/daemon/local-credential.ts';
import { e2eStateDir, startRealDocker } from './real-docker.ts';

const STEP_TIMEOUT_MS = 120_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');
const SERVER_ID = '0196a4f2-8e1c-7b3d-9f00-00000000b001';
const DEPLOYMENT_ID = '0196a4f2-8e1c-7b3d-9f00-00000000d001';

const engine = await startRealDocker(e2eStateDir('panel-e2e-docker-daemon-policy'));
if (!engine.started) {
  console.warn(`daemon policy e2e skipped: ${engine.reason}`);
  test.skip(`the daemon's policy on a real engine (the engine could not start: ${engine.reason})`, () => {});
}

const work = mkdtempSync(join(tmpdir(), 'panel-daemon-policy-'));
const socketPath = join(work, 'daemon.sock');
const stateDir = join(work, 'daemon-state');
const credentialFile = join(work, 'local-daemon.credential');
ensureLocalDaemonCredential(credentialFile);
const dockerEnv = engine.started ? engine.docker.env : {};
let daemon: Subprocess<'ignore', 'pipe', 'pipe'> | undefined;
const daemonOutput: string[] = [];

async function docker(...args: string[]) {
  const child = Bun.spawn(['docker', ...args], { env: { ...process.env, ...dockerEnv }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  return { stdout: stdout.trim(), exitCode };
}

/** The hub side of the daemon's one connection: welcomes it, sends commands, collects their results. */
const received: Frame[] = [];
const waiters: (() => void)[] = [];
let connection: ServerWebSocket<unknown> | undefined;
const hub = Bun.serve({
  unix: socketPath,
  fetch: (request, server) => (server.upgrade(request) ? undefined : new Response('upgrade expected', { status: 400 })),
  websocket: {
    open: (socket) => void (connection = socket),
    message(socket, message) {
      const frame = parseFrame(String(message));
      if (frame.type === 'hello') socket.send(encodeFrame({ type: 'welcome', serverId: SERVER_ID }));
      received.push(frame);
      for (const wake of waiters.splice(0)) wake();
    },
  },
});

async function until<T>(find: () => T | undefined, what: string, deadlineMs = 90_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in time; daemon said:\n${daemonOutput.join('').slice(-4000)}`);
    await Promise.race([new Promise<void>((wake) => waiters.push(wake)), Bun.sleep(200)]);
  }
}

async function run(command: CommandFrame): Promise<ResultFrame> {
  connection!.send(encodeFrame(command));
  return until(() => received.find((frame): frame is ResultFrame => frame.type === 'result' && frame.id === command.id), `the result of ${command.id}`);
}

const deploy = (id: string, project: string, compose: string, hostAccess = false): CommandFrame => ({
  type: 'command',
  id,
  kind: 'deploy',
  payload: { deploymentId: DEPLOYMENT_ID, project, compose, secrets: [], policy: { hostAccess, platform: false } },
});
const destroy = (project: string): CommandFrame => ({ type: 'command', id: `destroy-${project}`, kind: 'destroy', payload: { deploymentId: DEPLOYMENT_ID, project } });
const PROJECTS = ['pn-bind', 'pn-crafted', 'pn-refused', 'pn-extends'];
const containersOf = async (project: string) => (await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`)).stdout.split('\n').filter(Boolean);
/** The running container of one service: its id, command and bind mount sources. */
async function serviceContainer(project: string, service: string) {
  const filters = ['--filter', `label=com.docker.compose.project=${project}`, '--filter', `label=com.docker.compose.service=${service}`];
  const [id] = (await docker('ps', '-q', ...filters)).stdout.split('\n').filter(Boolean);
  if (id === undefined) return undefined;
  const inspected = JSON.parse((await docker('inspect', id)).stdout) as { Config: { Cmd: string[] }; Mounts: { Type: string; Source: string }[] }[];
  return { id, command: inspected[0]!.Config.Cmd, binds: inspected[0]!.Mounts.filter((mount) => mount.Type === 'bind').map((mount) => mount.Source) };
}

afterAll(async () => {
  if (connection !== undefined) for (const project of PROJECTS) await run(destroy(project)).catch(() => undefined);
  daemon?.kill('SIGTERM');
  await daemon?.exited;
  hub.stop(true);
  if (engine.started) {
    for (const project of PROJECTS) {
      const left = await containersOf(project);
      if (left.length > 0) await docker('rm', '-f', ...left);
    }
    await engine.docker.stop();
  }
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!engine.started)("the daemon's policy on a real engine", () => {
  test('the local daemon connects to the hub', async () => {
    daemon = Bun.spawn([process.execPath, MAIN, 'daemon', 'run', '--local', '--socket', socketPath, '--credential-file', credentialFile, '--state-dir', stateDir], {
      env: { ...process.env, ...dockerEnv },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    for (const stream of [daemon.stdout, daemon.stderr]) {
      void (async () => {
        for await (const chunk of stream) daemonOutput.push(new TextDecoder().decode(chunk));
      })();
    }
    await until(() => received.find((frame) => frame.type === 'hello'), 'the hello');
  }, STEP_TIMEOUT_MS);

  test('a relative bind mount deploys; the host folder the container writes lies inside the project folder', async () => {
    const compose = `services:
  web:
    image: local/busybox:1
    network_mode: none
    command: ["sh", "-c", "echo written-inside > /data/proof && sleep 3600"]
    stop_grace_period: 1s
    volumes: ["./data:/data"]
`;
    const result = await run(deploy('deploy-bind', 'pn-bind', compose));
    expect(result, daemonOutput.join('')).toMatchObject({ ok: true });
    const projectDir = join(stateDir, 'projects', 'pn-bind');
    const [id] = await containersOf('pn-bind');
    const mounts = JSON.parse((await docker('inspect', '--format', '{{json .Mounts}}', id!)).stdout) as { Type: string; Source: string }[];
    expect(mounts).toEqual([expect.objectContaining({ Type: 'bind', Source: join(projectDir, 'data') })]);
    const proof = join(projectDir, 'data', 'proof');
    await until(() => (existsSync(proof) ? true : undefined), 'the container writing into its bind mount');
    expect(readFileSync(proof, 'utf8')).toBe('written-inside\n');
    // The daemon's own files are beside the project folder, out of its reach.
    expect(existsSync(join(stateDir, 'projects', 'pn-bind.panel', 'compose.yaml'))).toBe(true);
    expect(existsSync(join(projectDir, 'compose.yaml'))).toBe(false);
  }, STEP_TIMEOUT_MS);

  test('a crafted command with a host bind is refused by the daemon with the path, and nothing starts', async () => {
    const compose = `services:
  web:
    image: local/busybox:1
    network_mode: none
    command: ["sleep", "3600"]
    volumes: ["/var/lib/panel-daemon:/stolen"]
`;
    const result = await run(deploy('deploy-crafted', 'pn-crafted', compose));
    expect(result).toMatchObject({ ok: false, error: { code: 'compose_policy', message: expect.stringMatching(/^services\.web\.volumes\.0: .*needs host access/) } });
    expect(await containersOf('pn-crafted')).toEqual([]);
    expect(existsSync(join(stateDir, 'projects', 'pn-crafted.panel'))).toBe(false);
  }, STEP_TIMEOUT_MS);

  test('a crafted command with any other key the tenant policy refuses is refused by the daemon with the path, and nothing starts', async () => {
    const refusals: [setting: string, path: string][] = [
      ['privileged: true', 'services.web.privileged'],
      ['pid: host', 'services.web.pid'],
      ['cap_add: [SYS_ADMIN]', 'services.web.cap_add.0'],
      ['security_opt: ["seccomp=unconfined"]', 'services.web.security_opt.0'],
      ['volumes_from: ["container:other"]', 'services.web.volumes_from'],
      ['label_file: ./labels', 'services.web.label_file'],
      ['not_a_compose_key: 1', 'services.web.not_a_compose_key'],
    ];
    for (const [index, [setting, path]] of refusals.entries()) {
      const compose = `services:\n  web:\n    image: local/busybox:1\n    network_mode: none\n    command: ["sleep", "3600"]\n    ${setting}\n`;
      const result = await run(deploy(`deploy-refused-${index}`, 'pn-refused', compose));
      expect(result, setting).toMatchObject({ ok: false, error: { code: 'compose_policy' } });
      expect((result as Extract<ResultFrame, { ok: false }>).error.message, setting).toMatch(new RegExp(`^${path.replaceAll('.', '\\.')}(: | is )`));
    }
    expect(await containersOf('pn-refused')).toEqual([]);
    expect(existsSync(join(stateDir, 'projects', 'pn-refused.panel'))).toBe(false);
  }, STEP_TIMEOUT_MS);

  test('extends: Compose resolves a service of the same document, and a file in the project folder only with host access', async () => {
    const projectDir = join(stateDir, 'projects', 'pn-extends');
    const sameDocument = `services:
  web:
    image: local/busybox:1
    network_mode: none
    command: ["sleep", "3600"]
    stop_grace_period: 1s
    volumes: ["./data:/data"]
  worker:
    extends: web
    command: ["sleep", "3601"]
`;
    expect(await run(deploy('deploy-extends', 'pn-extends', sameDocument)), daemonOutput.join('')).toMatchObject({ ok: true });
    const worker = await serviceContainer('pn-extends', 'worker');
    expect(worker).toMatchObject({ command: ['sleep', '3601'], binds: [join(projectDir, 'data')] });

    // A file in the project folder (there as a container or an operator would have put it).
    mkdirSync(join(projectDir, 'shared'), { recursive: true });
    writeFileSync(
      join(projectDir, 'shared', 'common.yaml'),
      'services:\n  base:\n    image: local/busybox:1\n    network_mode: none\n    command: ["sleep", "3602"]\n    stop_grace_period: 1s\n    volumes: ["./cache:/cache"]\n',
    );
    const fromFile = 'services:\n  worker:\n    extends: {file: ./shared/common.yaml, service: base}\n';
    const refused = await run(deploy('deploy-extends-file', 'pn-extends', fromFile));
    expect(refused).toMatchObject({ ok: false, error: { code: 'compose_policy', message: expect.stringMatching(/^services\.worker\.extends\.file: .*needs host access/) } });
    expect(await serviceContainer('pn-extends', 'worker')).toMatchObject({ id: worker!.id, command: ['sleep', '3601'] });

    expect(await run(deploy('deploy-extends-file-host', 'pn-extends', fromFile, true)), daemonOutput.join('')).toMatchObject({ ok: true });
    // Relative paths of the extended file resolve from its own folder, as Compose does.
    expect(await serviceContainer('pn-extends', 'worker')).toMatchObject({ command: ['sleep', '3602'], binds: [join(projectDir, 'shared', 'cache')] });
  }, STEP_TIMEOUT_MS);
});
