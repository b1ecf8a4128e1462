import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { session, user } from '../../../db/schema/index.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { addMember, cookieFrom, createOwner, createPasswordUser, originOf, signIn, tokenFor } from '../../../../test/identity.ts';

const AUTH = '/api/client/v1/auth';

describe('GET /auth/session', () => {
  test('the current user, their second factors and organizations; 401 anonymous', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t);
    const other = createOwner(t);
    addMember(t, other.organizationId, 'member');
    const { headers } = await signIn(t, person.email, person.password);
    const res = await t.request('GET', `${AUTH}/session`, undefined, headers!);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ user: { id: person.userId, email: person.email }, via: 'session', secondFactors: [] });
    expect(res.json.memberships).toEqual([{ organizationId: person.organizationId, organizationName: expect.any(String), role: 'owner' }]);
    expect(JSON.stringify(res.json)).not.toContain('argon2');
    expect((await t.request('GET', `${AUTH}/session`)).status).toBe(401);
  });

  test('through an API token it shows only the token\'s organization and role', async () => {
    const t = createTestApp();
    const alice = createOwner(t);
    const second = createOwner(t);
    t.db.update(user).set({ email: 'alice@example.test' }).where(eq(user.id, alice.userId)).run();
    addMember(t, second.organizationId, 'member');
    const bearer = tokenFor(t, alice, 'member');
    const res = await t.request('GET', `${AUTH}/session`, undefined, bearer);
    expect(res.json.via).toBe('token');
    expect(res.json.memberships).toEqual([{ organizationId: alice.organizationId, organizationName: expect.any(String), role: 'member' }]);
  });
});

describe('POST /auth/password', () => {
  test('changes the password, revokes every session (this one too) and issues a fresh one', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t);
    const here = (await signIn(t, person.email, person.password)).headers!;
    const elsewhere = (await signIn(t, person.email, person.password)).headers!;
    const res = await t.request('POST', `${AUTH}/password`, { currentPassword: person.password, newPassword: 'an even better passphrase' }, here);
    expect(res.status).toBe(204);
    const fresh = cookieFrom(t, res.headers)!;
    expect(fresh).not.toBe(here.cookie);
    expect((await t.request('GET', `${AUTH}/session`, undefined, here)).status).toBe(401);
    expect((await t.request('GET', `${AUTH}/session`, undefined, elsewhere)).status).toBe(401);
    expect((await t.request('GET', `${AUTH}/session`, undefined, { cookie: fresh })).status).toBe(200);
    expect(t.db.select().from(session).all()).toHaveLength(1);
    expect((await signIn(t, person.email, person.password)).res.status).toBe(401);
    expect((await signIn(t, person.email, 'an even better passphrase')).res.status).toBe(200);
  });

  test('refuses a wrong current password, a weak or e-mail password, tokens and foreign origins', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t, { email: 'carol@example.test' });
    const { headers } = await signIn(t, person.email, person.password);
    const wrong = await t.request('POST', `${AUTH}/password`, { currentPassword: 'not my password', newPassword: 'an even better passphrase' }, headers!);
    expect(wrong.status).toBe(422);
    expect(wrong.json.error).toMatchObject({ code: 'wrong_password', path: 'currentPassword' });
    const missing = await t.request('POST', `${AUTH}/password`, { newPassword: 'an even better passphrase' }, headers!);
    expect(missing.json.error.path).toBe('currentPassword');
    const weak = await t.request('POST', `${AUTH}/password`, { currentPassword: person.password, newPassword: 'short' }, headers!);
    expect(weak.json.error).toMatchObject({ code: 'validation_failed', path: 'newPassword' });
    const mail = await t.request('POST', `${AUTH}/password`, { currentPassword: person.password, newPassword: 'Carol@Example.test' }, headers!);
    expect(mail.json.error.path).toBe('newPassword');
    const foreign = await t.request('POST', `${AUTH}/password`, { currentPassword: person.password, newPassword: 'an even better passphrase' }, { ...headers!, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const bearer = tokenFor(t, { userId: person.userId, organizationId: person.organizationId!, headers: {} }, 'owner');
    expect((await t.request('POST', `${AUTH}/password`, { currentPassword: person.password, newPassword: 'an even better passphrase' }, bearer)).status).toBe(403);
    expect((await t.request('POST', `${AUTH}/password`, { newPassword: 42 }, headers!)).status).toBe(422);
    expect((await signIn(t, person.email, person.password)).res.status).toBe(200);
  });

  test('an account without a password (passkeys, oauth) may set one', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const res = await t.request('POST', `${AUTH}/password`, { newPassword: 'a first password here' }, owner.headers);
    expect(res.status).toBe(204);
    const email = t.db.select().from(user).where(eq(user.id, owner.userId)).get()!.email;
    expect((await signIn(t, email, 'a first password here')).res.status).toBe(200);
  });
});

describe('sessions', () => {
  test('lists live sessions, marks the current one, and revokes one; another user\'s session is 404', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t);
    const here = (await signIn(t, person.email, person.password, { 'user-agent': 'here/1.0' })).headers!;
    await signIn(t, person.email, person.password, { 'user-agent': 'there/2.0' });
    const stranger = createOwner(t);
    const list = await t.request('GET', `${AUTH}/sessions`, undefined, here);
    expect(list.status).toBe(200);
    expect(list.json.data.map((s: { userAgent: string; current: boolean }) => [s.userAgent, s.current])).toEqual([
      ['here/1.0', true],
      ['there/2.0', false],
    ]);
    const there = list.json.data[1].id;
    const strangerSession = t.db.select().from(session).where(eq(session.userId, stranger.userId)).get()!.id;
    expect((await t.request('DELETE', `${AUTH}/sessions/${strangerSession}`, undefined, here)).status).toBe(404);
    expect((await t.request('DELETE', `${AUTH}/sessions/not-a-uuid`, undefined, here)).status).toBe(422);
    expect((await t.request('DELETE', `${AUTH}/sessions/${there}`, undefined, here)).status).toBe(204);
    expect(t.db.select().from(session).where(eq(session.id, there)).get()).toBeUndefined();
    expect(t.db.select().from(session).where(eq(session.userId, stranger.userId)).all()).toHaveLength(1);
    // Revoking the current session also clears its cookie.
    const current = list.json.data[0].id;
    const self = await t.request('DELETE', `${AUTH}/sessions/${current}`, undefined, here);
    expect(self.status).toBe(204);
    expect(self.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await t.request('GET', `${AUTH}/sessions`, undefined, here)).status).toBe(401);
    expect((await t.request('GET', `${AUTH}/sessions`, undefined, originOf(t))).status).toBe(401);
  });
});

describe('every auth route', () => {
  const signedInRoutes: [string, string, unknown][] = [
    ['GET', '/session', undefined],
    ['POST', '/password', { newPassword: 'a long new password' }],
    ['POST', '/totp/enrol', undefined],
    ['POST', '/totp/confirm', { code: '123456' }],
    ['POST', '/totp/disable', { code: '123456' }],
    ['POST', '/recovery-codes', { code: '123456' }],
    ['GET', '/sessions', undefined],
    ['DELETE', '/sessions/01940000-0000-7000-8000-000000000001', undefined],
  ];

  test('routes for the signed-in user answer 401 without credentials', async () => {
    const t = createTestApp();
    createOwner(t);
    for (const [method, path, body] of signedInRoutes) {
      const res = await t.request(method, `${AUTH}${path}`, body, originOf(t));
      expect({ path, status: res.status, code: res.json?.error?.code }).toEqual({ path, status: 401, code: 'unauthenticated' });
    }
  });

  test('bad input is 422 with the path of the field', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const cases: [string, unknown, string][] = [
      ['/sign-in', { email: 'a@example.test', password: '' }, 'password'],
      ['/sign-in/totp', { challenge: 'x' }, 'code'],
      ['/sign-in/totp', { code: '123456' }, 'challenge'],
      ['/sign-in/recovery', { challenge: 'x', code: 'y'.repeat(65) }, 'code'],
      ['/password', { newPassword: 'x'.repeat(1025) }, 'newPassword'],
      ['/totp/confirm', {}, 'code'],
      ['/totp/disable', { code: '' }, 'code'],
      ['/recovery-codes', { code: ['123456'] }, 'code'],
    ];
    for (const [path, body, field] of cases) {
      const res = await t.request('POST', `${AUTH}${path}`, body, owner.headers);
      expect({ path, status: res.status, field: res.json.error.path }).toEqual({ path, status: 422, field });
    }
  });
});
