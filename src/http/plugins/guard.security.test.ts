import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { membership, session } from '../../db/schema/index.ts';
import { clientGuard } from './guard.ts';
import { createTestApp } from '../../../test/harness.ts';
import { addMember, createOwner, tokenFor } from '../../../test/identity.ts';
import { SESSION_LIFETIME_MS } from '../../domain/identity/resolve.ts';

describe('client guard', () => {
  test('no credentials: 401 unauthenticated', async () => {
    const t = createTestApp();
    createOwner(t);
    const res = await t.request('GET', '/api/client/v1/organizations');
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('unauthenticated');
  });

  test('before install, client routes answer 503 install_required', async () => {
    const t = createTestApp();
    const res = await t.request('GET', '/api/client/v1/organizations');
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe('install_required');
  });

  test('a session sees its own organizations and another organization is 404', async () => {
    const t = createTestApp();
    const alice = createOwner(t);
    const bob = createOwner(t);
    const list = await t.request('GET', '/api/client/v1/organizations', undefined, alice.headers);
    expect(list.status).toBe(200);
    expect(list.json.data.map((o: { id: string }) => o.id)).toEqual([alice.organizationId]);
    expect((await t.request('GET', `/api/client/v1/organizations/${alice.organizationId}`, undefined, alice.headers)).status).toBe(200);
    const foreign = await t.request('GET', `/api/client/v1/organizations/${bob.organizationId}`, undefined, alice.headers);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('not_found');
  });

  test('a tampered or unknown session cookie is 401', async () => {
    const t = createTestApp();
    const alice = createOwner(t);
    const tampered = { ...alice.headers, cookie: alice.headers.cookie!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) };
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, tampered)).status).toBe(401);
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, { cookie: 'panel_session=pns_x.y' })).status).toBe(401);
  });

  test('an expired session is 401, and use slides the expiry forward', async () => {
    const t = createTestApp();
    const alice = createOwner(t);
    t.clock.advance(SESSION_LIFETIME_MS / 2);
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, alice.headers)).status).toBe(200);
    const [row] = t.db.select().from(session).where(eq(session.userId, alice.userId)).all();
    expect(row!.expiresAt.getTime()).toBe(t.clock.now().getTime() + SESSION_LIFETIME_MS);
    t.clock.advance(SESSION_LIFETIME_MS + 1);
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, alice.headers)).status).toBe(401);
  });

  test('an API token sees only its organization and dies with its creator\'s membership', async () => {
    const t = createTestApp();
    const alice = createOwner(t);
    const other = createOwner(t);
    t.db.insert(membership).values({ organizationId: other.organizationId, userId: alice.userId, role: 'member' }).run();
    const bearer = tokenFor(t, alice, 'member');
    const list = await t.request('GET', '/api/client/v1/organizations', undefined, bearer);
    expect(list.json.data.map((o: { id: string }) => o.id)).toEqual([alice.organizationId]);
    t.db.delete(membership).where(eq(membership.userId, alice.userId)).run();
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, bearer)).status).toBe(401);
  });

  test('cookie-authenticated writes from a foreign Origin are refused (CSRF)', async () => {
    const t = createTestApp();
    const alice = createOwner(t);
    const member = addMember(t, alice.organizationId, 'member');
    let writes = 0;
    t.app.use(new Elysia({ prefix: '/api/client/v1' }).use(clientGuard(t.deps)).post('/test-write', () => ++writes));
    for (const origin of ['https://evil.example', 'null', '']) {
      const res = await t.request('POST', '/api/client/v1/test-write', {}, { ...member.headers, origin });
      expect(res.status).toBe(403);
    }
    const { origin: _omitted, ...withoutOrigin } = member.headers;
    expect((await t.request('POST', '/api/client/v1/test-write', {}, withoutOrigin)).status).toBe(403);
    expect(writes).toBe(0);
    expect((await t.request('POST', '/api/client/v1/test-write', {}, member.headers)).status).toBe(200);
    // Bearer tokens are not ambient credentials: no Origin needed.
    expect((await t.request('POST', '/api/client/v1/test-write', {}, tokenFor(t, member, 'member'))).status).toBe(200);
    expect(writes).toBe(2);
  });
});
