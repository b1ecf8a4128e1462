import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAsDaemon, sealForDaemon } from '../../crypto/index.ts';
import {
  daemonWebSocketUrl,
  IdentityError,
  joinControlPlane,
  loadIdentity,
  loadOrCreateLocalIdentity,
  normalizeControlPlaneUrl,
  readMachineId,
  rememberServerId,
  resolveStateDir,
} from './identity.ts';

const SERVER_ID = '0196a4f2-8e1c-7b3d-9f00-1234567890ab';
const OTHER_SERVER_ID = '0196a4f2-8e1c-7b3d-9f00-1234567890ac';

/** The peer: a minimal enroll endpoint that accepts one token, like the hub will. */
const received: { path: string; body: Record<string, string> }[] = [];
let enrollServer: ReturnType<typeof Bun.serve>;
let baseUrl: string;

beforeAll(() => {
  enrollServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Record<string, string>;
      received.push({ path: new URL(request.url).pathname, body });
      if (body.token !== 'good-token') {
        return Response.json({ error: { code: 'unauthenticated', message: 'join token is invalid or expired', requestId: 'r' } }, { status: 401 });
      }
      return Response.json({ serverId: SERVER_ID, credential: 'pdc_secret-credential' }, { status: 201 });
    },
  });
  baseUrl = `http://127.0.0.1:${enrollServer.port}`;
});
afterAll(() => enrollServer.stop(true));

const stateDirs: string[] = [];
async function freshStateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'panel-daemon-identity-'));
  stateDirs.push(dir);
  return join(dir, 'state');
}
afterEach(async () => {
  received.length = 0;
  await Promise.all(stateDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const MISSING = '/nonexistent/machine-id';

describe('joinControlPlane', () => {
  test('posts token, hostname, machineId, publicKey and keyId, and stores the identity with mode 0600', async () => {
    const stateDir = await freshStateDir();
    const machineIdPath = join(await mkdtemp(join(tmpdir(), 'panel-mid-')), 'machine-id');
    stateDirs.push(join(machineIdPath, '..'));
    await writeFile(machineIdPath, '4c4c4544004d3510804ab4c04f4e3232\n');

    const identity = await joinControlPlane({ url: `${baseUrl}/`, token: 'good-token', stateDir, hostname: 'web-1', machineIdPath });

    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('/api/daemon/v1/enroll');
    expect(received[0]!.body).toEqual({
      token: 'good-token',
      hostname: 'web-1',
      machineId: '4c4c4544004d3510804ab4c04f4e3232',
      publicKey: identity.publicKey,
      keyId: identity.keyId,
    });
    expect(identity.keyId).toMatch(/^dk_[A-Za-z0-9_-]{22}$/);
    expect(identity).toMatchObject({ url: baseUrl, serverId: SERVER_ID, credential: 'pdc_secret-credential' });

    const file = join(stateDir, 'identity.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(identity);
    expect(await loadIdentity(stateDir)).toEqual(identity);
  });

  test('the stored key pair opens envelopes sealed to the public key it enrolled', async () => {
    const identity = await joinControlPlane({ url: baseUrl, token: 'good-token', stateDir: await freshStateDir(), machineIdPath: MISSING });
    const envelope = sealForDaemon({ serverId: identity.serverId, daemonKeyId: identity.keyId, publicKey: received[0]!.body.publicKey! }, 's3cret');
    expect(openAsDaemon({ serverId: identity.serverId, daemonKeyId: identity.keyId, privateKey: identity.privateKey }, envelope)).toBe('s3cret');
  });

  test('a refused enrollment says why and writes nothing', async () => {
    const stateDir = await freshStateDir();
    const joining = joinControlPlane({ url: baseUrl, token: 'expired', stateDir, machineIdPath: MISSING });
    await expect(joining).rejects.toThrow(IdentityError);
    await expect(joining).rejects.toThrow('HTTP 401 unauthenticated: join token is invalid or expired');
    await expect(loadIdentity(stateDir)).rejects.toThrow('not joined');
  });

  test('an unreachable control plane is a clear error', async () => {
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    await expect(joinControlPlane({ url, token: 'good-token', stateDir: await freshStateDir(), machineIdPath: MISSING })).rejects.toThrow(
      `cannot reach ${url}/api/daemon/v1/enroll`,
    );
  });

  test('refuses to replace an existing identity unless forced', async () => {
    const stateDir = await freshStateDir();
    const first = await joinControlPlane({ url: baseUrl, token: 'good-token', stateDir, machineIdPath: MISSING });
    await expect(joinControlPlane({ url: baseUrl, token: 'good-token', stateDir, machineIdPath: MISSING })).rejects.toThrow('--force');
    const second = await joinControlPlane({ url: baseUrl, token: 'good-token', stateDir, machineIdPath: MISSING, force: true });
    expect(second.keyId).not.toBe(first.keyId);
    expect(second.machineId).toBe(first.machineId);
  });
});

describe('machine id', () => {
  test('without /etc/machine-id, one id is generated, persisted with mode 0600 and reused', async () => {
    const stateDir = await freshStateDir();
    const first = await readMachineId(stateDir, MISSING);
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(await readMachineId(stateDir, MISSING)).toBe(first);
    expect((await stat(join(stateDir, 'machine-id'))).mode & 0o777).toBe(0o600);
  });
});

describe('local identity', () => {
  test('is created once with mode 0600 and remembers the welcomed server id', async () => {
    const stateDir = await freshStateDir();
    const created = await loadOrCreateLocalIdentity(stateDir, MISSING);
    expect(created.serverId).toBeUndefined();
    expect((await stat(join(stateDir, 'local-identity.json'))).mode & 0o777).toBe(0o600);

    await rememberServerId(stateDir, true, SERVER_ID);
    expect(await loadOrCreateLocalIdentity(stateDir, MISSING)).toEqual({ ...created, serverId: SERVER_ID });
  });

  test('a joined daemon adopts the server id its welcome names', async () => {
    const stateDir = await freshStateDir();
    await joinControlPlane({ url: baseUrl, token: 'good-token', stateDir, machineIdPath: MISSING });
    await rememberServerId(stateDir, false, OTHER_SERVER_ID);
    expect((await loadIdentity(stateDir)).serverId).toBe(OTHER_SERVER_ID);
    expect((await stat(join(stateDir, 'identity.json'))).mode & 0o777).toBe(0o600);
  });

  test('a damaged identity file is reported, not guessed at', async () => {
    const stateDir = await freshStateDir();
    await loadOrCreateLocalIdentity(stateDir, MISSING);
    await writeFile(join(stateDir, 'identity.json'), '{"url": 1}');
    await expect(loadIdentity(stateDir)).rejects.toThrow('damaged');
  });
});

describe('configuration helpers', () => {
  test('state dir: flag, then PANEL_DAEMON_STATE_DIR, then the default', () => {
    expect(resolveStateDir('/a', { PANEL_DAEMON_STATE_DIR: '/b' })).toBe('/a');
    expect(resolveStateDir(undefined, { PANEL_DAEMON_STATE_DIR: '/b' })).toBe('/b');
    expect(resolveStateDir(undefined, {})).toBe('/var/lib/panel-daemon');
  });

  test('urls: http(s) only, trailing slashes dropped, ws(s) endpoint derived', () => {
    expect(normalizeControlPlaneUrl('https://panel.example.com/')).toBe('https://panel.example.com');
    expect(normalizeControlPlaneUrl('http://10.0.0.1:3000/panel//')).toBe('http://10.0.0.1:3000/panel');
    expect(() => normalizeControlPlaneUrl('ftp://panel')).toThrow(IdentityError);
    expect(() => normalizeControlPlaneUrl('panel.example.com')).toThrow(IdentityError);
    expect(() => normalizeControlPlaneUrl('https://panel.example.com/?x=1')).toThrow(IdentityError);
    expect(daemonWebSocketUrl('https://panel.example.com')).toBe('wss://panel.example.com/ws/daemon/v1');
    expect(daemonWebSocketUrl('http://10.0.0.1:3000')).toBe('ws://10.0.0.1:3000/ws/daemon/v1');
  });
});
