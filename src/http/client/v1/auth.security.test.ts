import { describe, expect, spyOn, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import * as password from '../../../auth/password.ts';
import { rateLimit, session, user } from '../../../db/schema/index.ts';
import { RECENT_SIGN_IN_MS } from '../../../contract/identity.ts';
import { BEHIND_LOCAL_PROXY, createTestApp } from '../../../../test/harness.ts';
import { cookieFrom, createOwner, createPasswordUser, originOf, signIn } from '../../../../test/identity.ts';
import { authenticatorFor, passkeySignIn, registerPasskey } from './auth-passkeys.helpers.ts';

const SIGN_IN = '/api/client/v1/auth/sign-in';

describe('password sign-in', () => {
  test('signs in with a signed HttpOnly SameSite=Lax cookie and a fresh token every time', async () => {
    const t = createTestApp();
    const alice = await createPasswordUser(t);
    const first = await signIn(t, alice.email, alice.password);
    expect(first.res.status).toBe(200);
    expect(first.res.json).toMatchObject({ status: 'signed_in', user: { id: alice.userId, email: alice.email, isSuperadmin: false } });
    const setCookie = first.res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^panel_session=pns_[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(setCookie).not.toContain('Secure');
    // The cookie works, and the database holds only the token's hash.
    expect((await t.request('GET', '/api/client/v1/auth/session', undefined, first.headers!)).json.user.id).toBe(alice.userId);
    const token = decodeURIComponent(first.headers!.cookie!.split('=')[1]!).split('.')[0]!;
    expect(JSON.stringify(t.db.select().from(session).all())).not.toContain(token);

    const second = await signIn(t, alice.email, alice.password);
    expect(second.headers!.cookie).not.toBe(first.headers!.cookie);
    expect(t.db.select().from(session).where(eq(session.userId, alice.userId)).all()).toHaveLength(2);
  });

  test('over https the cookie is Secure with the __Host- prefix', async () => {
    const t = createTestApp({ publicUrl: 'https://panel.example' });
    const alice = await createPasswordUser(t);
    const res = await t.request('POST', SIGN_IN, { email: alice.email, password: alice.password }, { origin: 'https://panel.example' });
    expect(res.headers.get('set-cookie')).toMatch(/^__Host-panel_session=.*; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/);
  });

  test('the e-mail is matched case-insensitively', async () => {
    const t = createTestApp();
    const alice = await createPasswordUser(t, { email: 'alice@example.test' });
    expect((await signIn(t, 'Alice@Example.TEST', alice.password)).res.status).toBe(200);
  });

  test('a wrong password and an unknown e-mail answer the same 401, and both spend one hash', async () => {
    const t = createTestApp();
    const alice = await createPasswordUser(t);
    const verify = spyOn(password, 'verifyPassword');
    try {
      const wrong = await signIn(t, alice.email, 'not the password at all');
      const unknown = await signIn(t, 'nobody@example.test', 'not the password at all');
      for (const { res, headers } of [wrong, unknown]) {
        expect(res.status).toBe(401);
        expect(res.json.error.code).toBe('invalid_credentials');
        expect(res.json.error.message).toBe('e-mail or password is wrong');
        expect(headers).toBeNull();
      }
      expect(verify).toHaveBeenCalledTimes(2);
      // The unknown address was verified against a real Argon2id hash, not skipped.
      expect(verify.mock.calls[1]![1]).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    } finally {
      verify.mockRestore();
    }
  });

  test('an account without a password cannot sign in with one', async () => {
    const t = createTestApp();
    await createPasswordUser(t);
    const row = t.db.insert(user).values({ email: 'passkey-only@example.test' }).returning().get();
    expect((await signIn(t, row.email, 'any password at all')).res.status).toBe(401);
  });

  test('a weaker stored hash is replaced at sign-in', async () => {
    const t = createTestApp();
    const alice = await createPasswordUser(t, { withOrganization: true });
    const weak = await Bun.password.hash(alice.password, { algorithm: 'argon2id', memoryCost: 4096, timeCost: 1 });
    t.db.update(user).set({ passwordHash: weak }).where(eq(user.id, alice.userId)).run();
    expect((await signIn(t, alice.email, alice.password)).res.status).toBe(200);
    const stored = t.db.select().from(user).where(eq(user.id, alice.userId)).get()!.passwordHash!;
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await Bun.password.verify(alice.password, stored)).toBe(true);
  });

  test('sign-in from a foreign Origin is refused before any password check (login CSRF)', async () => {
    const t = createTestApp();
    const alice = await createPasswordUser(t);
    for (const origin of ['https://evil.example', 'null']) {
      const res = await t.request('POST', SIGN_IN, { email: alice.email, password: alice.password }, { origin });
      expect(res.status).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect((await t.request('POST', SIGN_IN, { email: alice.email, password: alice.password })).status).toBe(403);
    expect(t.db.select().from(session).all()).toHaveLength(0);
  });

  test('bad input is 422 with a path', async () => {
    const t = createTestApp();
    await createPasswordUser(t);
    const res = await t.request('POST', SIGN_IN, { email: 'not-an-email', password: 'x' }, originOf(t));
    expect(res.status).toBe(422);
    expect(res.json.error.path).toBe('email');
    expect((await t.request('POST', SIGN_IN, { email: 'a@example.test' }, originOf(t))).json.error.path).toBe('password');
  });

  test('before the install every auth route answers 503 install_required', async () => {
    const t = createTestApp();
    for (const path of ['/auth/sign-in', '/auth/sign-in/totp', '/auth/sign-in/recovery', '/auth/sign-out', '/invitations/accept']) {
      const res = await t.request('POST', `/api/client/v1${path}`, {}, originOf(t));
      expect(res.status).toBe(503);
      expect(res.json.error.code).toBe('install_required');
    }
  });
});

describe('sign-in rate limits', () => {
  test('an account is limited after 100 failures in an hour for the addresses that failed, with Retry-After; the owner elsewhere still signs in', async () => {
    const t = createTestApp(BEHIND_LOCAL_PROXY);
    const alice = await createPasswordUser(t);
    // One real failure, then 99 more seeded directly (fast), spread over the last hour.
    await signIn(t, alice.email, 'wrong password one', { 'x-forwarded-for': '198.51.100.1' });
    const [row] = t.db.select().from(rateLimit).all().filter((r) => r.key.startsWith('sign-in:account:'));
    const now = t.clock.now().getTime();
    t.db.insert(rateLimit).values(Array.from({ length: 99 }, (_, i) => ({ key: row!.key, failedAt: new Date(now - 59 * 60_000 + i) }))).run();

    // From an address that failed, even the right password is refused (a correct guess must tell nothing).
    const limited = await signIn(t, alice.email, alice.password, { 'x-forwarded-for': '198.51.100.1' });
    expect(limited.res.status).toBe(429);
    expect(limited.res.json.error.code).toBe('rate_limited');
    expect(Number(limited.res.headers.get('retry-after'))).toBe(60);
    // The owner, from an address without failures, is not locked out by them (issue 13 M1).
    expect((await signIn(t, alice.email, alice.password, { 'x-forwarded-for': '203.0.113.9' })).res.status).toBe(200);

    t.clock.advance(61_000);
    expect((await signIn(t, alice.email, alice.password, { 'x-forwarded-for': '198.51.100.1' })).res.status).toBe(200);
  });

  test('an address is limited after 50 failures in 15 minutes, whichever accounts it tries', async () => {
    const t = createTestApp(BEHIND_LOCAL_PROXY);
    const alice = await createPasswordUser(t);
    const from = { 'x-forwarded-for': '198.51.100.7' };
    const key = 'sign-in:address:198.51.100.7';
    t.db.insert(rateLimit).values(Array.from({ length: 49 }, () => ({ key, failedAt: t.clock.now() }))).run();
    expect((await signIn(t, 'someone@example.test', 'wrong password', from)).res.status).toBe(401);
    const limited = await signIn(t, alice.email, alice.password, from);
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBe(15 * 60);
    // Another address is not affected.
    expect((await signIn(t, alice.email, alice.password, { 'x-forwarded-for': '198.51.100.8' })).res.status).toBe(200);
    t.clock.advance(15 * 60_000);
    expect((await signIn(t, alice.email, alice.password, from)).res.status).toBe(200);
  });
});

describe('sign-out', () => {
  test('revokes the session server side and clears the cookie', async () => {
    const t = createTestApp();
    const alice = await createPasswordUser(t);
    const { headers } = await signIn(t, alice.email, alice.password);
    const out = await t.request('POST', '/api/client/v1/auth/sign-out', undefined, headers!);
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^panel_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0$/);
    expect(t.db.select().from(session).all()).toHaveLength(0);
    // The old cookie, replayed, is dead.
    expect((await t.request('GET', '/api/client/v1/auth/session', undefined, headers!)).status).toBe(401);
  });

  test('a cross-origin sign-out is refused (the session survives)', async () => {
    const t = createTestApp();
    const alice = await createPasswordUser(t);
    const { headers } = await signIn(t, alice.email, alice.password);
    const res = await t.request('POST', '/api/client/v1/auth/sign-out', undefined, { ...headers!, origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(t.db.select().from(session).all()).toHaveLength(1);
  });
});

describe('recent sign-in for a first password', () => {
  const PASSWORD = '/api/client/v1/auth/password';

  test('an account without a password sets one only from a session signed in within 15 minutes', async () => {
    const t = createTestApp();
    const owner = createOwner(t); // no password: signs in with a passkey
    const authenticator = authenticatorFor(t);
    expect((await registerPasskey(t, owner.headers, authenticator)).done.status).toBe(201);
    t.clock.advance(RECENT_SIGN_IN_MS);
    const stale = await t.request('POST', PASSWORD, { newPassword: 'a stolen cookie password' }, owner.headers);
    expect({ status: stale.status, code: stale.json.error.code }).toEqual({ status: 403, code: 'reauthentication_required' });
    expect(t.db.select().from(user).where(eq(user.id, owner.userId)).get()!.passwordHash).toBeNull();

    const again = await passkeySignIn(t, authenticator);
    expect(again.status).toBe(200);
    const fresh = { cookie: cookieFrom(t, again.headers)!, ...originOf(t) };
    expect((await t.request('POST', PASSWORD, { newPassword: 'my own first password' }, fresh)).status).toBe(204);
    const email = t.db.select().from(user).where(eq(user.id, owner.userId)).get()!.email;
    expect((await signIn(t, email, 'my own first password')).res.json.status).toBe('two_factor_required'); // the passkey
  });

  test('changing an existing password proves the current one instead: an old session may', async () => {
    const t = createTestApp();
    const alice = await createPasswordUser(t);
    const { headers } = await signIn(t, alice.email, alice.password);
    t.clock.advance(RECENT_SIGN_IN_MS);
    const res = await t.request('POST', PASSWORD, { currentPassword: alice.password, newPassword: 'an even better passphrase' }, headers!);
    expect(res.status).toBe(204);
  });
});

describe('sign-up', () => {
  const body = { email: 'new@example.test', password: 'a long enough password', organizationName: 'New Co' };

  test('exists only in the development runtime with PANEL_IS_SIGNUP_ENABLED', async () => {
    for (const overrides of [{}, { runtime: 'development' as const }, { isSignupEnabled: true }]) {
      const t = createTestApp(overrides);
      await createPasswordUser(t);
      const res = await t.request('POST', '/api/client/v1/auth/sign-up', body, originOf(t));
      expect(res.status).toBe(404);
      expect(t.app.routes.some((route) => route.path.endsWith('/auth/sign-up'))).toBe(false);
    }
  });

  test('creates the user and an organization they own, signed in', async () => {
    const t = createTestApp({ runtime: 'development', isSignupEnabled: true });
    const res = await t.request('POST', '/api/client/v1/auth/sign-up', body, originOf(t));
    expect(res.status).toBe(201);
    expect(res.json.user.email).toBe('new@example.test');
    const cookie = cookieFrom(t, res.headers)!;
    const me = await t.request('GET', '/api/client/v1/auth/session', undefined, { cookie });
    expect(me.json.memberships).toEqual([{ organizationId: res.json.organizationId, organizationName: 'New Co', role: 'owner' }]);
    expect(me.json.user.isSuperadmin).toBe(false);
    // The same e-mail again: 409.
    const again = await t.request('POST', '/api/client/v1/auth/sign-up', { ...body, email: 'NEW@example.test' }, originOf(t));
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('email_in_use');
  });

  test('refuses weak passwords, a password equal to the e-mail, and foreign origins', async () => {
    const t = createTestApp({ runtime: 'development', isSignupEnabled: true });
    const short = await t.request('POST', '/api/client/v1/auth/sign-up', { ...body, password: 'short pw' }, originOf(t));
    expect(short.status).toBe(422);
    expect(short.json.error.path).toBe('password');
    const same = await t.request('POST', '/api/client/v1/auth/sign-up', { ...body, password: 'NEW@example.test' }, originOf(t));
    expect(same.status).toBe(422);
    expect(same.json.error.message).toContain('e-mail');
    expect((await t.request('POST', '/api/client/v1/auth/sign-up', body, { origin: 'https://evil.example' })).status).toBe(403);
    expect(t.db.select().from(user).all()).toHaveLength(0);
  });
});
