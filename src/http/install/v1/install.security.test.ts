import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureInstallToken, installTokenPath } from '../../../auth/install-token.ts';
import { membership, organization, session, user, workspace } from '../../../db/schema/index.ts';
import { completeInstall } from '../../../domain/identity/install.ts';
import { announceInstall } from '../../../domain/identity/installed.ts';
import type { HostCommandRunner } from '../../../auth/pam.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { cookieFrom, originOf } from '../../../../test/identity.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function installableApp(overrides = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-install-'));
  dirs.push(dataDir);
  const t = createTestApp({ dataDir, ...overrides });
  return { t, dataDir, token: ensureInstallToken(dataDir).token };
}

const body = (token: string) => ({
  proof: { kind: 'token', token },
  email: 'Root@Example.test',
  password: 'a very long superadmin password',
  organizationName: 'Acme',
});

describe('install wizard', () => {
  test('status answers before the install; the token method is always offered', async () => {
    const { t } = installableApp();
    const res = await t.request('GET', '/api/install/v1/status');
    expect(res.status).toBe(200);
    expect(res.json.installed).toBe(false);
    expect(res.json.methods).toContain('token');
  });

  test('completing creates the organization, its workspaces, the superadmin owner, and signs in; the token dies', async () => {
    const { t, dataDir, token } = installableApp();
    const res = await t.request('POST', '/api/install/v1/complete', body(token), originOf(t));
    expect(res.status).toBe(201);
    expect(res.json.user).toMatchObject({ email: 'root@example.test', isSuperadmin: true });
    const cookie = cookieFrom(t, res.headers)!;
    expect(cookie).toStartWith('panel_session=pns_');
    const [org] = t.db.select().from(organization).all();
    expect(org!.name).toBe('Acme');
    expect(res.json.organizationId).toBe(org!.id);
    expect(t.db.select().from(workspace).all().map((w) => [w.name, w.kind]).sort()).toEqual([['Default', 'user'], ['TurboPanel', 'panel']]);
    expect(t.db.select().from(membership).get()).toMatchObject({ organizationId: org!.id, userId: res.json.user.id, role: 'owner' });
    expect(t.db.select().from(user).get()!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(existsSync(installTokenPath(dataDir))).toBe(false);
    // The session works and the client surface is open now.
    const me = await t.request('GET', '/api/client/v1/auth/session', undefined, { cookie });
    expect(me.json.memberships[0].role).toBe('owner');
    // Afterwards the install surface answers 410 already_installed.
    for (const [method, path] of [['GET', '/status'], ['POST', '/complete']] as const) {
      const gone = await t.request(method, `/api/install/v1${path}`, method === 'POST' ? body(token) : undefined, originOf(t));
      expect(gone.status).toBe(410);
      expect(gone.json.error.code).toBe('already_installed');
    }
    expect(t.db.select().from(organization).all()).toHaveLength(1);
  });

  test('a wrong token is refused (401), limited per address, and changes nothing', async () => {
    const { t, dataDir, token } = installableApp();
    for (let i = 0; i < 10; i++) {
      const res = await t.request('POST', '/api/install/v1/complete', body(`${token}${i}`), originOf(t));
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('invalid_credentials');
    }
    const limited = await t.request('POST', '/api/install/v1/complete', body(token), originOf(t));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(t.db.select().from(user).all()).toHaveLength(0);
    expect(existsSync(installTokenPath(dataDir))).toBe(true);
    t.clock.advance(15 * 60_000);
    expect((await t.request('POST', '/api/install/v1/complete', body(token), originOf(t))).status).toBe(201);
  });

  test('foreign origins, weak passwords and bad input are refused before anything is created', async () => {
    const { t, token } = installableApp();
    expect((await t.request('POST', '/api/install/v1/complete', body(token), { origin: 'https://evil.example' })).status).toBe(403);
    const weak = await t.request('POST', '/api/install/v1/complete', { ...body(token), password: 'short' }, originOf(t));
    expect(weak.status).toBe(422);
    expect(weak.json.error.path).toBe('password');
    const same = await t.request('POST', '/api/install/v1/complete', { ...body(token), password: 'root@example.test' }, originOf(t));
    expect(same.json.error.path).toBe('password');
    const bad = await t.request('POST', '/api/install/v1/complete', { ...body(token), organizationName: '' }, originOf(t));
    expect(bad.json.error.path).toBe('organizationName');
    const proof = await t.request('POST', '/api/install/v1/complete', { ...body(token), proof: { kind: 'magic' } }, originOf(t));
    expect(proof.status).toBe(422);
    expect(proof.json.error.path).toStartWith('proof');
    expect(t.db.select().from(organization).all()).toHaveLength(0);
    expect(t.db.select().from(session).all()).toHaveLength(0);
  });

  test.skipIf(Bun.which('pamtester') !== null)('the host-account method answers 501 where pamtester is not installed', async () => {
    const { t } = installableApp();
    const res = await t.request(
      'POST',
      '/api/install/v1/complete',
      { ...body('unused'), proof: { kind: 'host', username: 'admin', password: 'x' } },
      originOf(t),
    );
    expect(res.status).toBe(501);
    expect(res.json.error.code).toBe('host_auth_unavailable');
    expect((await t.request('GET', '/api/install/v1/status')).json.methods).toEqual(['token']);
  });

  test('a sudo host account may prove access instead of the token (PAM stubbed)', async () => {
    const { t, dataDir } = installableApp();
    const runner: HostCommandRunner = {
      which: (command) => `/usr/bin/${command}`,
      run: async (argv) => ({ exitCode: 0, stdout: argv[1] === '-nG' ? 'admin sudo' : '' }),
    };
    const input = { ...body('unused'), proof: { kind: 'host' as const, username: 'admin', password: 'host password' } };
    const installed = await completeInstall(t.deps, dataDir, input, { address: 'local' }, runner);
    expect(installed.user.isSuperadmin).toBe(true);
  });

  test('the development runtime has no install surface', async () => {
    const { t, token } = installableApp({ runtime: 'development' });
    expect((await t.request('GET', '/api/install/v1/status')).status).toBe(404);
    expect((await t.request('POST', '/api/install/v1/complete', body(token), originOf(t))).status).toBe(404);
  });

  test('panel serve says where the token is, never the token itself, before the install and removes a stale one after', async () => {
    const { t, dataDir, token } = installableApp();
    const lines: string[] = [];
    const logger = { debug() {}, info: (message: string, fields?: object) => lines.push(`${message} ${JSON.stringify(fields ?? {})}`), warn() {}, error() {} };
    announceInstall(t.db, t.config, logger);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(token);
    expect(lines[0]).toContain(installTokenPath(dataDir));
    expect(lines[0]).toContain(`${t.config.publicUrl}/install`);
    await t.request('POST', '/api/install/v1/complete', body(token), originOf(t));
    ensureInstallToken(dataDir);
    announceInstall(t.db, t.config, logger);
    expect(existsSync(installTokenPath(dataDir))).toBe(false);
    expect(lines).toHaveLength(1);
  });
});
