/**
 * The daemon's own Compose policy on a real engine (../shared/tools/real-docker.sh): a real
 * `panel daemon run --local` process gets its commands from a scripted hub on the unix socket,
 * as a control plane (or anything that reached the daemon's socket) would send them.
 *
 * - A document with a relative bind mount deploys under the tenant policy, and the host folder
 *   the container writes lies inside the environment's project folder.
 * - A crafted command with a host bind (bypassing the control plane's checks) is refused by the
 *   daemon with the path, and nothing starts.
 *
 * Skipped with a printed reason only when the engine cannot start.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

const deploy = (id: string, project: string, compose: string): CommandFrame => ({
  type: 'command',
  id,
  kind: 'deploy',
  payload: { deploymentId: DEPLOYMENT_ID, project, compose, secrets: [], policy: { hostAccess: false, platform: false } },
});
const destroy = (project: string): CommandFrame => ({ type: 'command', id: `destroy-${project}`, kind: 'destroy', payload: { deploymentId: DEPLOYMENT_ID, project } });
const containersOf = async (project: string) => (await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`)).stdout.split('\n').filter(Boolean);

afterAll(async () => {
  if (connection !== undefined) for (const project of ['pn-bind', 'pn-crafted']) await run(destroy(project)).catch(() => undefined);
  daemon?.kill('SIGTERM');
  await daemon?.exited;
  hub.stop(true);
  if (engine.started) {
    for (const project of ['pn-bind', 'pn-crafted']) {
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
});
