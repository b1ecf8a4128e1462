/**
 * The local slot authenticates (issue 13 §2). The review found that any client on the daemon
 * socket was welcomed as the local server and replaced its daemon key, so the next deploy's
 * secrets were sealed to the impostor. Now: the local daemon credential is checked before the
 * upgrade, the local daemon key is pinned at the first hello, and only an operator's reset lets
 * a hello change it.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { generateDaemonKeyPair } from '../crypto/index.ts';
import { server } from '../db/schema/index.ts';
import { allowNewLocalDaemonKey } from '../domain/servers/local-key.ts';
import { enrolledServer, FakeSocket, helloFrame, listenOnUnixSocket, upgradeStatus } from '../../test/daemon.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { createOwner, tokenFor } from '../../test/identity.ts';
import { DaemonHub } from './hub.ts';
import type { HubConnection } from './hub/connection.ts';
import { ensureLocalDaemonCredential, LocalCredentialError, readLocalDaemonCredential, resolveLocalCredentialFile } from './local-credential.ts';
import { CLOSE_CODES } from '../contract/daemon-protocol.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'panel-local-slot-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const keyOf = () => {
  const pair = generateDaemonKeyPair();
  return { keyId: `dk_${crypto.randomUUID().slice(0, 8)}`, publicKey: pair.publicKey };
};

const localRow = (t: TestApp) => t.db.select().from(server).where(eq(server.isLocal, true)).get();

function localHello(t: TestApp, daemonKey?: { keyId: string; publicKey: string }): { socket: FakeSocket; connection: HubConnection } {
  const socket = new FakeSocket();
  const connection = t.hub.open(socket, { listener: 'unix' });
  t.hub.receive(connection, JSON.stringify(helloFrame({ hostname: 'panel-host', machineId: 'panel-host', ...(daemonKey ? { daemonKey } : {}) })));
  return { socket, connection };
}

/** The test app's unix-socket instance (like panel serve's second listener). */
const listenLocal = (t: TestApp) => `ws+unix://${listenOnUnixSocket(t, cleanups)}:/ws/daemon/v1`;

describe('the local daemon credential on the unix socket', () => {
  test('an upgrade without it, or with another token, is refused with 401 before any socket opens', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const url = listenLocal(t);
    const enrolled = { authorization: `Bearer ${enrolledServer(t, owner.organizationId).credential}` };
    const wrong = [{}, { authorization: 'Bearer pnl_wrong' }, { authorization: `Bearer ${t.localCredential}x` }, enrolled, tokenFor(t, owner, 'owner')];
    for (const headers of wrong) {
      expect(await upgradeStatus(url, headers)).toBe(401);
    }
    expect(t.hub.connectionCount).toBe(0);
    expect(localRow(t)).toBeUndefined();
    expect(await upgradeStatus(url, { authorization: `Bearer ${t.localCredential}` })).toBe(101);
  });

  test('a hub without a local credential refuses every local client', () => {
    const t = createTestApp();
    expect(t.hub.authenticateLocal(t.localCredential)).toBe(true);
    const bare = new DaemonHub({ db: t.db, clock: t.clock, logger: t.deps.logger });
    expect(bare.authenticateLocal('')).toBe(false);
    expect(bare.authenticateLocal(null)).toBe(false);
    expect(bare.authenticateLocal(t.localCredential)).toBe(false);
  });
});

describe('the local daemon key is pinned on first use', () => {
  test('an impostor hello with another key is refused (4010); the key and the live connection are unchanged', () => {
    const t = createTestApp();
    createOwner(t);
    const real = keyOf();
    const first = localHello(t, real);
    expect(first.socket.framesOf('welcome')).toHaveLength(1);
    const pinned = localRow(t)!;
    expect(pinned).toMatchObject({ daemonKeyId: real.keyId, publicKey: real.publicKey, keyResetAt: null });

    const impostor = localHello(t, keyOf());
    expect(impostor.socket.closedWith?.code).toBe(CLOSE_CODES.localKeyRefused);
    expect(impostor.socket.closedWith!.reason).toContain(`is not the pinned ${real.keyId}`);
    expect(Buffer.byteLength(impostor.socket.closedWith!.reason!)).toBeLessThanOrEqual(123);
    expect(impostor.socket.framesOf('welcome')).toEqual([]);
    expect(localRow(t)).toMatchObject({ daemonKeyId: real.keyId, publicKey: real.publicKey });
    // The real daemon was not replaced by the refused one.
    expect(first.socket.closedWith).toBeNull();
    expect(t.hub.isConnected(pinned.id)).toBe(true);
  });

  test('a local hello without a key is refused too', () => {
    const t = createTestApp();
    createOwner(t);
    const real = keyOf();
    localHello(t, real);
    const keyless = localHello(t);
    expect(keyless.socket.closedWith).toEqual({ code: CLOSE_CODES.localKeyRefused, reason: 'the local daemon must present its daemon key' });
    expect(localRow(t)).toMatchObject({ daemonKeyId: real.keyId, publicKey: real.publicKey });
  });

  test('the same key again is welcomed and replaces the older connection', () => {
    const t = createTestApp();
    createOwner(t);
    const real = keyOf();
    const first = localHello(t, real);
    const again = localHello(t, real);
    expect(again.socket.framesOf('welcome')).toHaveLength(1);
    expect(first.socket.closedWith?.code).toBe(CLOSE_CODES.replaced);
  });

  test("an operator's reset lets exactly the next hello bring a new key; the old key serves until then", () => {
    const t = createTestApp();
    createOwner(t);
    const old = keyOf();
    localHello(t, old);
    const reset = allowNewLocalDaemonKey(t.db, t.clock.now());
    expect(reset.pinnedKeyId).toBe(old.keyId);
    // Deploys still seal to the old key until the next hello.
    expect(localRow(t)).toMatchObject({ daemonKeyId: old.keyId, publicKey: old.publicKey });

    const replacement = keyOf();
    expect(localHello(t, replacement).socket.framesOf('welcome')).toHaveLength(1);
    expect(localRow(t)).toMatchObject({ daemonKeyId: replacement.keyId, publicKey: replacement.publicKey, keyResetAt: null });
    // The reset was spent: the next different key is refused again.
    expect(localHello(t, keyOf()).socket.closedWith?.code).toBe(CLOSE_CODES.localKeyRefused);
    expect(localRow(t)).toMatchObject({ daemonKeyId: replacement.keyId });
  });

  test('a reset before any local server exists is 404', () => {
    const t = createTestApp();
    expect(() => allowNewLocalDaemonKey(t.db, t.clock.now())).toThrow('local server not found');
  });
});

describe('POST /api/admin/v1/local-server/reset-key', () => {
  test('superadmins only: anonymous 401, an organization owner 403, a superadmin 200', async () => {
    const t = createTestApp();
    const admin = createOwner(t, { isSuperadmin: true });
    const owner = createOwner(t);
    const path = '/api/admin/v1/local-server/reset-key';
    expect((await t.request('POST', path)).status).toBe(401);
    expect((await t.request('POST', path, undefined, owner.headers)).status).toBe(403);
    expect((await t.request('POST', path, undefined, admin.headers)).json.error.code).toBe('not_found');
    const real = keyOf();
    localHello(t, real);
    const res = await t.request('POST', path, undefined, admin.headers);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ serverId: localRow(t)!.id, pinnedKeyId: real.keyId, resetAt: t.clock.now().toISOString() });
    expect(localRow(t)!.keyResetAt?.getTime()).toBe(t.clock.now().getTime());
  });
});

describe('the credential file', () => {
  test('created once, 0600, and read back the same by serve and daemon; group or world bits are removed', async () => {
    const file = join(tempDir(), 'data', 'local-daemon.credential');
    expect(await readLocalDaemonCredential(file)).toBeNull();
    const credential = ensureLocalDaemonCredential(file);
    expect(credential).toMatch(/^pnl_[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(ensureLocalDaemonCredential(file)).toBe(credential);
    expect(await readLocalDaemonCredential(file)).toBe(credential);
    chmodSync(file, 0o644);
    expect(ensureLocalDaemonCredential(file)).toBe(credential);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${credential}\n`);
  });

  test('a damaged file is refused with what to do, never used', async () => {
    const file = join(tempDir(), 'local-daemon.credential');
    writeFileSync(file, 'guessable\n', { mode: 0o600 });
    expect(() => ensureLocalDaemonCredential(file)).toThrow(LocalCredentialError);
    expect(() => ensureLocalDaemonCredential(file)).toThrow('remove it and start panel serve');
    await expect(readLocalDaemonCredential(file)).rejects.toThrow(LocalCredentialError);
  });

  test("the daemon finds it where serve keeps it: flag, environment, PANEL_DATA_DIR or ./data", () => {
    expect(resolveLocalCredentialFile('/etc/x.credential', { PANEL_LOCAL_DAEMON_CREDENTIAL_FILE: '/y', PANEL_DATA_DIR: '/d' })).toBe('/etc/x.credential');
    expect(resolveLocalCredentialFile('rel.credential', {})).toBe(join(process.cwd(), 'rel.credential'));
    expect(resolveLocalCredentialFile(undefined, { PANEL_LOCAL_DAEMON_CREDENTIAL_FILE: '/y', PANEL_DATA_DIR: '/d' })).toBe('/y');
    expect(resolveLocalCredentialFile(undefined, { PANEL_DATA_DIR: '/d' })).toBe('/d/local-daemon.credential');
    // Without PANEL_DATA_DIR: serve's ./data of the working directory.
    const cwd = process.cwd();
    const dir = tempDir();
    process.chdir(dir);
    try {
      expect(resolveLocalCredentialFile(undefined, {})).toBe(join(realpathSync(dir), 'data', 'local-daemon.credential'));
    } finally {
      process.chdir(cwd);
    }
  });
});
