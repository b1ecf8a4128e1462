import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { createTestApp } from '../../../test/harness.ts';
import { createOwner, tokenFor } from '../../../test/identity.ts';
import { DomainError } from '../../lib/errors.ts';
import { adminGuard } from './admin-guard.ts';
import { authenticateUpgrade } from './ws-auth.ts';

function withAdminRoute() {
  const t = createTestApp();
  let calls = 0;
  t.app.use(
    new Elysia({ prefix: '/api/admin/v1' })
      .use(adminGuard(t.deps))
      .post('/test-action', ({ actor }) => ({ calls: ++calls, userId: actor.userId })),
  );
  return { t, calls: () => calls };
}

describe('admin guard', () => {
  test('anonymous 401, a non-superadmin 403 (owner or not), a superadmin passes', async () => {
    const { t, calls } = withAdminRoute();
    const owner = createOwner(t);
    const root = createOwner(t, { isSuperadmin: true });
    const anonymous = await t.request('POST', '/api/admin/v1/test-action', {}, { origin: new URL(t.config.publicUrl).origin });
    expect(anonymous.status).toBe(401);
    const member = await t.request('POST', '/api/admin/v1/test-action', {}, owner.headers);
    expect(member.status).toBe(403);
    expect(member.json.error.code).toBe('forbidden');
    expect(calls()).toBe(0);
    const ok = await t.request('POST', '/api/admin/v1/test-action', {}, root.headers);
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ calls: 1, userId: root.userId });
  });

  test('API tokens never carry superadmin power; cookie writes need the console origin', async () => {
    const { t, calls } = withAdminRoute();
    const root = createOwner(t, { isSuperadmin: true });
    expect((await t.request('POST', '/api/admin/v1/test-action', {}, tokenFor(t, root, 'owner'))).status).toBe(403);
    expect((await t.request('POST', '/api/admin/v1/test-action', {}, { ...root.headers, origin: 'https://evil.example' })).status).toBe(403);
    expect(calls()).toBe(0);
  });
});

describe('WebSocket upgrade authentication', () => {
  const upgrade = (t: ReturnType<typeof createTestApp>, headers: Record<string, string>) =>
    new Request('http://localhost/ws/client/v1', { headers: { upgrade: 'websocket', ...headers } });

  const status = (run: () => unknown) => {
    try {
      run();
      return 200;
    } catch (error) {
      return (error as DomainError).status;
    }
  };

  test('a cookie upgrade needs the console origin; bearer tokens do not; nothing is 401', () => {
    const t = createTestApp();
    const owner = createOwner(t);
    expect(authenticateUpgrade(t.deps, upgrade(t, owner.headers)).userId).toBe(owner.userId);
    expect(status(() => authenticateUpgrade(t.deps, upgrade(t, { ...owner.headers, origin: 'https://evil.example' })))).toBe(403);
    const { origin: _dropped, ...cookieOnly } = owner.headers;
    expect(status(() => authenticateUpgrade(t.deps, upgrade(t, cookieOnly)))).toBe(403);
    expect(authenticateUpgrade(t.deps, upgrade(t, tokenFor(t, owner, 'member'))).kind).toBe('token');
    expect(status(() => authenticateUpgrade(t.deps, upgrade(t, {})))).toBe(401);
  });
});
