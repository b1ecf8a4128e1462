import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { totpCode } from '../../../auth/totp.ts';
import { passkey, session } from '../../../db/schema/index.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { cookieFrom, createPasswordUser, originOf, signIn, tokenFor } from '../../../../test/identity.ts';
import { authenticatorFor, passkeySignIn, registerPasskey, userWithPasskey } from './auth-passkeys.helpers.ts';

const AUTH = '/api/client/v1/auth';
const PASSKEYS = `${AUTH}/passkeys`;

describe('passkey registration', () => {
  test('options name the relying party from PANEL_PUBLIC_URL and the user; verify stores the public key', async () => {
    const t = createTestApp({ publicUrl: 'https://panel.example.test' });
    const person = await createPasswordUser(t);
    const signedIn = await t.request('POST', `${AUTH}/sign-in`, { email: person.email, password: person.password }, { origin: 'https://panel.example.test' });
    const headers = { cookie: cookieFrom(t, signedIn.headers)!, origin: 'https://panel.example.test' };
    const authenticator = authenticatorFor(t);
    const { start, done, response } = await registerPasskey(t, headers, authenticator, '  YubiKey 5  ');
    expect(start.json.options).toMatchObject({
      rp: { id: 'panel.example.test', name: 'Panel' },
      user: { id: Buffer.from(person.userId).toString('base64url'), name: person.email },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    expect(start.json.challenge).toStartWith('pnwebauthn.v1.');
    expect(start.json.challenge).not.toContain(start.json.options.challenge);
    expect(Date.parse(start.json.expiresAt) - t.clock.now().getTime()).toBe(5 * 60_000);

    expect(done.status).toBe(201);
    expect(done.json).toEqual({
      id: expect.any(String),
      name: 'YubiKey 5',
      deviceType: 'singleDevice',
      isBackedUp: false,
      transports: ['internal'],
      lastUsedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const row = t.db.select().from(passkey).get()!;
    expect(row).toMatchObject({ userId: person.userId, credentialId: response.id, counter: 1, name: 'YubiKey 5' });
    expect(row.publicKey).toMatch(/^[A-Za-z0-9_-]+$/);
    // The credential id and public key are not part of any answer.
    expect(JSON.stringify(done.json)).not.toContain(response.id);
  });

  test('several passkeys per user; the second registration excludes the first; default name', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const phone = authenticatorFor(t);
    const { start, done } = await registerPasskey(t, alice.headers, phone);
    expect(start.json.options.excludeCredentials).toEqual([{ id: alice.credentialId, type: 'public-key', transports: ['internal'] }]);
    expect(done.status).toBe(201);
    expect(done.json.name).toBe('Passkey');
    const list = await t.request('GET', PASSKEYS, undefined, alice.headers);
    expect(list.status).toBe(200);
    expect(list.json.data.map((p: { name: string }) => p.name)).toEqual(['Laptop', 'Passkey']);
    expect(list.json.nextCursor).toBeNull();
    // Both authenticators sign in.
    expect((await passkeySignIn(t, alice.authenticator)).status).toBe(200);
    expect((await passkeySignIn(t, phone)).status).toBe(200);
  });

  test('needs a signed-in session: anonymous 401, API token 403, cross-origin write 403', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t);
    const { headers } = await signIn(t, person.email, person.password);
    expect((await t.request('POST', `${PASSKEYS}/register/options`)).status).toBe(401);
    expect((await t.request('GET', PASSKEYS)).status).toBe(401);
    const bearer = tokenFor(t, { userId: person.userId, organizationId: person.organizationId!, headers: {} }, 'owner');
    const viaToken = await t.request('POST', `${PASSKEYS}/register/options`, undefined, bearer);
    expect(viaToken.status).toBe(403);
    expect(viaToken.json.error.code).toBe('session_required');
    expect((await t.request('GET', PASSKEYS, undefined, bearer)).status).toBe(403);
    const foreign = await t.request('POST', `${PASSKEYS}/register/options`, undefined, { cookie: headers!.cookie!, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
  });

  test('bad input is 422 with a path', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const start = await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers);
    const response = authenticatorFor(t).register(start.json.options);
    const cases: [unknown, string][] = [
      [{ response }, 'challenge'],
      [{ challenge: start.json.challenge }, 'response'],
      [{ challenge: start.json.challenge, response: { ...response, type: 'password' } }, 'response.type'],
      [{ challenge: start.json.challenge, response: { ...response, id: 'not base64url!' } }, 'response.id'],
      [{ challenge: start.json.challenge, response, name: '' }, 'name'],
      [{ challenge: start.json.challenge, response, name: 'x'.repeat(256) }, 'name'],
    ];
    for (const [body, path] of cases) {
      const res = await t.request('POST', `${PASSKEYS}/register/verify`, body, alice.headers);
      expect({ path, status: res.status, code: res.json.error.code, at: res.json.error.path }).toEqual({ path, status: 422, code: 'validation_failed', at: path });
    }
  });
});

describe('managing passkeys', () => {
  test('rename and delete your own; another user’s passkey is 404 and untouched', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const bob = await userWithPasskey(t);
    const renamed = await t.request('PATCH', `${PASSKEYS}/${alice.passkeyId}`, { name: 'Work laptop' }, alice.headers);
    expect(renamed.status).toBe(200);
    expect(renamed.json.name).toBe('Work laptop');
    expect((await t.request('PATCH', `${PASSKEYS}/${bob.passkeyId}`, { name: 'mine now' }, alice.headers)).status).toBe(404);
    expect((await t.request('DELETE', `${PASSKEYS}/${bob.passkeyId}`, undefined, alice.headers)).status).toBe(404);
    expect((await t.request('PATCH', `${PASSKEYS}/not-a-uuid`, { name: 'x' }, alice.headers)).status).toBe(422);
    expect(t.db.select().from(passkey).where(eq(passkey.id, bob.passkeyId)).get()!.name).toBe('Laptop');

    const removed = await t.request('DELETE', `${PASSKEYS}/${alice.passkeyId}`, undefined, alice.headers);
    expect(removed.status).toBe(204);
    expect((await t.request('GET', PASSKEYS, undefined, alice.headers)).json.data).toEqual([]);
    // A deleted passkey no longer signs in, and password sign-in no longer asks for a second factor.
    expect((await passkeySignIn(t, alice.authenticator)).status).toBe(401);
    expect((await signIn(t, alice.email, alice.password)).res.json.status).toBe('signed_in');
  });
});

describe('passkey sign-in', () => {
  test('a discoverable passkey alone signs in: session cookie, counter and last use recorded', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const start = await t.request('POST', `${PASSKEYS}/sign-in/options`, undefined, originOf(t));
    expect(start.status).toBe(200);
    expect(start.json.options).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required' });
    expect(start.json.options.allowCredentials ?? []).toEqual([]);
    const response = alice.authenticator.authenticate(start.json.options);
    const res = await t.request('POST', `${PASSKEYS}/sign-in/verify`, { challenge: start.json.challenge, response }, originOf(t));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'signed_in', user: { id: alice.userId, email: alice.email } });
    const cookie = cookieFrom(t, res.headers)!;
    expect(cookie).toStartWith('panel_session=');
    const me = await t.request('GET', `${AUTH}/session`, undefined, { cookie });
    expect(me.json.user.id).toBe(alice.userId);
    expect(me.json.secondFactors).toEqual(['passkey']);
    const row = t.db.select().from(passkey).where(eq(passkey.id, alice.passkeyId)).get()!;
    expect(row.counter).toBe(2);
    expect(row.lastUsedAt?.toISOString()).toBe(t.clock.now().toISOString());
  });

  test('a passkey sign-in satisfies both factors, even for a user with TOTP', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const { secret } = (await t.request('POST', `${AUTH}/totp/enrol`, undefined, alice.headers)).json;
    expect((await t.request('POST', `${AUTH}/totp/confirm`, { code: totpCode(secret, t.clock.now()) }, alice.headers)).status).toBe(200);
    expect((await signIn(t, alice.email, alice.password)).res.json.methods).toEqual(['totp', 'recovery', 'passkey']);
    const res = await passkeySignIn(t, alice.authenticator);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('signed_in');
  });

  test('authenticators that do not count (always 0) keep working', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t, { countsSignatures: false });
    for (let i = 0; i < 3; i++) expect((await passkeySignIn(t, alice.authenticator)).status).toBe(200);
    expect(t.db.select().from(passkey).get()!.counter).toBe(0);
  });

  test('as the second factor: password, then the passkey completes the pn2fa challenge', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const first = await signIn(t, alice.email, alice.password);
    expect(first.res.json).toMatchObject({ status: 'two_factor_required', methods: ['passkey'] });
    expect(first.headers).toBeNull();
    const twoFactorChallenge = first.res.json.challenge as string;

    const start = await t.request('POST', `${PASSKEYS}/sign-in/options`, { twoFactorChallenge }, originOf(t));
    expect(start.status).toBe(200);
    expect(start.json.options.allowCredentials).toEqual([{ id: alice.credentialId, type: 'public-key', transports: ['internal'] }]);
    expect(start.json.options.userVerification).toBe('discouraged');
    // Possession is the second factor: no user verification needed here.
    const response = alice.authenticator.authenticate(start.json.options, { userVerified: false });
    const sessionsBefore = t.db.select().from(session).all().length;
    const res = await t.request('POST', `${PASSKEYS}/sign-in/verify`, { challenge: start.json.challenge, response, twoFactorChallenge }, originOf(t));
    expect(res.status).toBe(200);
    expect(res.json.user.id).toBe(alice.userId);
    expect(cookieFrom(t, res.headers)).not.toBeNull();
    expect(t.db.select().from(session).all().length).toBe(sessionsBefore + 1);

    // The pn2fa challenge is spent: it cannot start or finish another second step.
    const again = await t.request('POST', `${AUTH}/sign-in/totp`, { challenge: twoFactorChallenge, code: '123456' }, originOf(t));
    expect(again.status).toBe(401);
    const replayStart = await t.request('POST', `${PASSKEYS}/sign-in/options`, { twoFactorChallenge }, originOf(t));
    const replay = await t.request(
      'POST',
      `${PASSKEYS}/sign-in/verify`,
      { challenge: replayStart.json.challenge, response: alice.authenticator.authenticate(replayStart.json.options), twoFactorChallenge },
      originOf(t),
    );
    expect(replay.status).toBe(401);
    expect(replay.json.error).toMatchObject({ code: 'invalid_challenge', path: 'twoFactorChallenge' });
  });

  test('second-factor options for an account without passkeys: 409 no_passkey; a bad pn2fa: 401', async () => {
    const t = createTestApp();
    const { secret, ...bob } = await (async () => {
      const person = await createPasswordUser(t);
      const { headers } = await signIn(t, person.email, person.password);
      const enrol = (await t.request('POST', `${AUTH}/totp/enrol`, undefined, headers!)).json;
      await t.request('POST', `${AUTH}/totp/confirm`, { code: totpCode(enrol.secret, t.clock.now()) }, headers!);
      return { ...person, secret: enrol.secret as string };
    })();
    expect(secret).toBeString();
    const pending = (await signIn(t, bob.email, bob.password)).res.json.challenge;
    const res = await t.request('POST', `${PASSKEYS}/sign-in/options`, { twoFactorChallenge: pending }, originOf(t));
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('no_passkey');
    const bad = await t.request('POST', `${PASSKEYS}/sign-in/options`, { twoFactorChallenge: 'pn2fa.v1.x.y' }, originOf(t));
    expect(bad.status).toBe(401);
    expect(bad.json.error).toMatchObject({ code: 'invalid_challenge', path: 'twoFactorChallenge' });
  });

  test('before the install every passkey route answers 503', async () => {
    const t = createTestApp();
    expect((await t.request('POST', `${PASSKEYS}/sign-in/options`, {}, originOf(t))).status).toBe(503);
    expect((await t.request('GET', PASSKEYS)).status).toBe(503);
  });
});

describe('OpenAPI', () => {
  test('documents every passkey route with its answers', async () => {
    const t = createTestApp();
    const doc = (await t.request('GET', '/api/openapi.json')).json;
    const expected: [string, string, string[]][] = [
      ['/api/client/v1/auth/passkeys', 'get', ['200', '401', '403']],
      ['/api/client/v1/auth/passkeys/register/options', 'post', ['200', '401', '403', '409']],
      ['/api/client/v1/auth/passkeys/register/verify', 'post', ['201', '401', '403', '409', '422', '429']],
      ['/api/client/v1/auth/passkeys/{id}', 'patch', ['200', '401', '404', '422']],
      ['/api/client/v1/auth/passkeys/{id}', 'delete', ['204', '401', '404']],
      ['/api/client/v1/auth/passkeys/sign-in/options', 'post', ['200', '401', '409']],
      ['/api/client/v1/auth/passkeys/sign-in/verify', 'post', ['200', '401', '403', '422', '429']],
    ];
    for (const [path, method, statuses] of expected) {
      const operation = doc.paths[path]?.[method];
      expect({ path, method, found: operation !== undefined }).toEqual({ path, method, found: true });
      for (const status of statuses) expect({ path, method, status, documented: status in operation.responses }).toEqual({ path, method, status, documented: true });
    }
  });
});
