/**
 * `panel daemon` end to end in-process: join against a Bun.serve enroll endpoint, run against a
 * Bun.serve hub (TCP and unix socket). Docker is deliberately unreachable (PATH=/nonexistent),
 * so hello reports null versions.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLOSE_CODES, encodeFrame, type HelloFrame, parseFrame } from '../../contract/daemon-protocol.ts';
import { ensureLocalDaemonCredential } from '../local-credential.ts';
import { daemonCommand } from './cli.ts';

const SERVER_ID = '0196a4f2-8e1c-7b3d-9f00-1234567890ab';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'panel-daemon-cli-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function capture(env: Record<string, string | undefined>, signal?: AbortSignal) {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), env, signal } };
}

/** A hub that answers hello with welcome and a ping, then applies `onPong` to the socket. */
function startHub(listen: { unix: string } | { hostname: string; port: number }, onPong: (socket: Bun.ServerWebSocket<unknown>) => void) {
  const hellos: HelloFrame[] = [];
  const authorizations: (string | null)[] = [];
  const server = Bun.serve({
    ...listen,
    fetch(request, srv) {
      if (new URL(request.url).pathname === '/api/daemon/v1/enroll') return Response.json({ serverId: SERVER_ID, credential: 'pdc_cli' }, { status: 201 });
      authorizations.push(request.headers.get('authorization'));
      return srv.upgrade(request) ? undefined : new Response('upgrade expected', { status: 400 });
    },
    websocket: {
      message(socket, message) {
        const frame = parseFrame(String(message));
        if (frame.type === 'pong') onPong(socket);
        if (frame.type !== 'hello') return;
        hellos.push(frame);
        socket.send(encodeFrame({ type: 'welcome', serverId: SERVER_ID }));
        socket.send(encodeFrame({ type: 'ping', ts: 1 }));
      },
    },
  });
  cleanups.push(() => server.stop(true));
  return { server, hellos, authorizations };
}

const NO_DOCKER = { PATH: '/nonexistent' };

describe('daemonCommand', () => {
  test('usage errors exit 2 and print the usage', async () => {
    for (const args of [[], ['fly'], ['join'], ['join', 'https://panel.example.com'], ['run', '--bogus'], ['run', '--state-dir']]) {
      const { out, io } = capture({});
      expect(await daemonCommand(args, io)).toBe(2);
      expect(out.stderr).toContain('usage:');
    }
    const { out, io } = capture({});
    expect(await daemonCommand(['--help'], io)).toBe(0);
    expect(out.stdout).toContain('panel daemon join <url> --token <token>');
  });

  test('run before join says how to join and exits 1', async () => {
    const { out, io } = capture({ ...NO_DOCKER, PANEL_DAEMON_STATE_DIR: await tempDir() });
    expect(await daemonCommand(['run'], io)).toBe(1);
    expect(out.stderr).toContain('run panel daemon join <url> --token <token>');
  });

  test('join then run: hello with the bearer credential; a 4003 close parks with exit 3', async () => {
    const stateDir = await tempDir();
    const hub = startHub({ hostname: '127.0.0.1', port: 0 }, (socket) => socket.close(CLOSE_CODES.unauthorized, 'credential revoked'));
    const url = `http://127.0.0.1:${hub.server.port}`;

    const joined = capture({ ...NO_DOCKER });
    expect(await daemonCommand(['join', url, '--token=jt_1', '--state-dir', stateDir], joined.io)).toBe(0);
    expect(joined.out.stdout).toContain(`as server ${SERVER_ID}`);
    expect(joined.out.stderr).toContain('plain http');

    const ran = capture({ ...NO_DOCKER, PANEL_LOG_LEVEL: 'error' });
    expect(await daemonCommand(['run', '--state-dir', stateDir], ran.io)).toBe(3);
    expect(ran.out.stderr).toContain('close 4003 credential revoked');
    expect(ran.out.stderr).not.toContain('pdc_cli');
    expect(hub.authorizations).toEqual(['Bearer pdc_cli']);
    expect(hub.hellos).toEqual([
      { type: 'hello', hostname: expect.any(String), serverId: SERVER_ID, machineId: expect.any(String), version: expect.any(String), docker: { version: null, composeVersion: null } },
    ]);
  });

  test('run --local: the credential of PANEL_DATA_DIR, announces its key, remembers the welcomed server id, stops on abort', async () => {
    const stateDir = await tempDir();
    const dataDir = await tempDir();
    const credential = ensureLocalDaemonCredential(join(dataDir, 'local-daemon.credential'));
    const socketPath = join(await tempDir(), 'daemon.sock');
    const controller = new AbortController();
    const hub = startHub({ unix: socketPath }, () => controller.abort());

    const env = { ...NO_DOCKER, PANEL_DATA_DIR: dataDir, PANEL_DAEMON_SOCKET: socketPath, PANEL_DAEMON_STATE_DIR: stateDir, PANEL_LOG_LEVEL: 'error' };
    const ran = capture(env, controller.signal);
    expect(await daemonCommand(['run', '--local'], ran.io)).toBe(0);

    const localIdentity = JSON.parse(await readFile(join(stateDir, 'local-identity.json'), 'utf8'));
    expect(hub.authorizations).toEqual([`Bearer ${credential}`]);
    expect(hub.hellos[0]).not.toHaveProperty('serverId');
    expect(hub.hellos[0]!.daemonKey).toEqual({ keyId: localIdentity.keyId, publicKey: localIdentity.publicKey });
    // The pong proves the welcome (sent before the ping) was handled; run waits for its write.
    expect(localIdentity.serverId).toBe(SERVER_ID);
  });

  test('run --local refused on upgrade (401) parks with exit 3 and names the credential file, never its content', async () => {
    const socketPath = join(await tempDir(), 'daemon.sock');
    const credentialFile = join(await tempDir(), 'elsewhere.credential');
    const credential = ensureLocalDaemonCredential(credentialFile);
    const server = Bun.serve({ unix: socketPath, fetch: () => new Response('unauthenticated', { status: 401 }) });
    cleanups.push(() => server.stop(true));

    const ran = capture({ ...NO_DOCKER, PANEL_DAEMON_SOCKET: socketPath, PANEL_DAEMON_STATE_DIR: await tempDir(), PANEL_LOG_LEVEL: 'error' });
    expect(await daemonCommand(['run', '--local', '--credential-file', credentialFile], ran.io)).toBe(3);
    expect(ran.out.stderr).toContain(`${credentialFile} must be the file panel serve uses`);
    expect(ran.out.stderr).not.toContain(credential);
  });
});
