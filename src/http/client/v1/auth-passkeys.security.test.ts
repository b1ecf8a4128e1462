import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { peekChallenge, sealChallenge } from '../../../crypto/index.ts';
import { consumedChallenge, passkey, rateLimit, session } from '../../../db/schema/index.ts';
import { RECENT_SIGN_IN_MS } from '../../../contract/identity.ts';
import { BEHIND_LOCAL_PROXY, type TestApp, createTestApp } from '../../../../test/harness.ts';
import { cookieFrom, originOf, signIn, tokenFor } from '../../../../test/identity.ts';
import type { CeremonyOverrides, SoftwareAuthenticator } from '../../../../test/webauthn-authenticator.ts';
import { authenticatorFor, PASSKEYS, passkeySignIn, registerPasskey, userWithPasskey } from './auth-passkeys.helpers.ts';

const CEREMONY_LIFETIME_MS = 5 * 60_000;

async function signInOptions(t: TestApp, body: Record<string, unknown> = {}, extra: Record<string, string> = {}) {
  const res = await t.request('POST', `${PASSKEYS}/sign-in/options`, body, { ...originOf(t), ...extra });
  expect(res.status).toBe(200);
  return res.json as { options: { challenge: string; rpId: string; allowCredentials?: { id: string }[] }; challenge: string };
}

const verify = (t: TestApp, body: Record<string, unknown>, extra: Record<string, string> = {}) =>
  t.request('POST', `${PASSKEYS}/sign-in/verify`, body, { ...originOf(t), ...extra });

/** A discoverable sign-in where the authenticator bends `overrides`. */
async function forgedSignIn(t: TestApp, authenticator: SoftwareAuthenticator, overrides: CeremonyOverrides) {
  const start = await signInOptions(t);
  return verify(t, { challenge: start.challenge, response: authenticator.authenticate(start.options, overrides) });
}

const expectRefused = (res: { status: number; json: any; headers: Headers }, code = 'passkey_invalid') => {
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status: 401, code });
  expect(res.headers.get('set-cookie')).toBeNull();
};

describe('signature counters', () => {
  test('a counter that goes backwards or repeats is refused, and the stored counter stays', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    expect((await passkeySignIn(t, alice.authenticator)).status).toBe(200);
    expect((await passkeySignIn(t, alice.authenticator)).status).toBe(200);
    const stored = () => t.db.select().from(passkey).where(eq(passkey.id, alice.passkeyId)).get()!.counter;
    expect(stored()).toBe(3);
    // A clone of the authenticator made earlier signs with an older counter, then with the same one.
    expectRefused(await forgedSignIn(t, alice.authenticator, { counter: 2 }));
    expectRefused(await forgedSignIn(t, alice.authenticator, { counter: 3 }));
    expectRefused(await forgedSignIn(t, alice.authenticator, { counter: 0 }));
    expect(stored()).toBe(3);
    // The genuine authenticator moves on.
    expect((await forgedSignIn(t, alice.authenticator, { counter: 10 })).status).toBe(200);
    expect(stored()).toBe(10);
  });
});

describe('pnwebauthn envelopes', () => {
  test('single use: a verified sign-in cannot be replayed, even with a fresh signature', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const start = await signInOptions(t);
    const response = alice.authenticator.authenticate(start.options);
    expect((await verify(t, { challenge: start.challenge, response })).status).toBe(200);
    expectRefused(await verify(t, { challenge: start.challenge, response }), 'invalid_challenge');
    const again = alice.authenticator.authenticate(start.options);
    expectRefused(await verify(t, { challenge: start.challenge, response: again }), 'invalid_challenge');
  });

  test('single use even when the first attempt failed (no retries on one challenge)', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const start = await signInOptions(t);
    expectRefused(await verify(t, { challenge: start.challenge, response: alice.authenticator.authenticate(start.options, { origin: 'https://evil.example' }) }));
    expectRefused(await verify(t, { challenge: start.challenge, response: alice.authenticator.authenticate(start.options) }), 'invalid_challenge');
  });

  test('expired after five minutes', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const start = await signInOptions(t);
    const response = alice.authenticator.authenticate(start.options);
    t.clock.advance(CEREMONY_LIFETIME_MS);
    expectRefused(await verify(t, { challenge: start.challenge, response }), 'invalid_challenge');

    const registration = await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers);
    t.clock.advance(CEREMONY_LIFETIME_MS);
    const late = await t.request(
      'POST',
      `${PASSKEYS}/register/verify`,
      { challenge: registration.json.challenge, response: authenticatorFor(t).register(registration.json.options) },
      alice.headers,
    );
    expect(late.status).toBe(422);
    expect(late.json.error).toMatchObject({ code: 'invalid_registration_challenge', path: 'challenge' });
  });

  test('registration replay: one envelope registers at most one passkey', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const start = await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers);
    const first = authenticatorFor(t).register(start.json.options);
    const second = authenticatorFor(t).register(start.json.options);
    expect((await t.request('POST', `${PASSKEYS}/register/verify`, { challenge: start.json.challenge, response: first }, alice.headers)).status).toBe(201);
    const replay = await t.request('POST', `${PASSKEYS}/register/verify`, { challenge: start.json.challenge, response: second }, alice.headers);
    expect(replay.status).toBe(422);
    expect(replay.json.error.code).toBe('invalid_registration_challenge');
    expect(t.db.select().from(passkey).all()).toHaveLength(2);
  });

  test('bound to the ceremony: registration, sign-in and second-factor envelopes do not cross', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const registration = (await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers)).json;
    // A registration envelope (subject alice) presented to sign in.
    const withRegistration = alice.authenticator.authenticate({ challenge: registration.options.challenge, rpId: '127.0.0.1' });
    expectRefused(await verify(t, { challenge: registration.challenge, response: withRegistration }), 'invalid_challenge');

    // A sign-in envelope presented to register.
    const signInStart = await signInOptions(t);
    const asRegistration = await t.request(
      'POST',
      `${PASSKEYS}/register/verify`,
      { challenge: signInStart.challenge, response: authenticatorFor(t).register({ ...registration.options, challenge: signInStart.options.challenge }) },
      alice.headers,
    );
    expect(asRegistration.status).toBe(422);
    expect(asRegistration.json.error.code).toBe('invalid_registration_challenge');

    // A second-factor envelope used for a discoverable sign-in, and the other way round.
    const pending = (await signIn(t, alice.email, alice.password)).res.json.challenge as string;
    const secondFactor = await signInOptions(t, { twoFactorChallenge: pending });
    expectRefused(await verify(t, { challenge: secondFactor.challenge, response: alice.authenticator.authenticate(secondFactor.options) }), 'invalid_challenge');
    const discoverable = await signInOptions(t);
    expectRefused(
      await verify(t, { challenge: discoverable.challenge, response: alice.authenticator.authenticate(discoverable.options), twoFactorChallenge: pending }),
      'invalid_challenge',
    );
    // Another purpose's envelope (the pn2fa itself) is not a pnwebauthn envelope.
    expectRefused(await verify(t, { challenge: pending, response: alice.authenticator.authenticate(discoverable.options) }), 'invalid_challenge');
    // Same subject and pn2fa, only the ceremony differs: still refused.
    const pendingId = peekChallenge(t.deps.keyring, t.clock, '2fa', pending).id;
    const otherCeremony = sealChallenge(t.deps.keyring, t.clock, 'webauthn', alice.userId, { ceremony: 'registration', challenge: 'AAAAAAAAAAAAAAAAAAAAAA', twoFactorId: pendingId });
    const forged = alice.authenticator.authenticate({ challenge: 'AAAAAAAAAAAAAAAAAAAAAA', rpId: '127.0.0.1' });
    expectRefused(await verify(t, { challenge: otherCeremony, response: forged, twoFactorChallenge: pending }), 'invalid_challenge');
  });

  test('bound to its subject: a registration envelope of another user, and a forged anonymous one', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const bob = await userWithPasskey(t);
    const bobs = (await t.request('POST', `${PASSKEYS}/register/options`, undefined, bob.headers)).json;
    const stolen = await t.request(
      'POST',
      `${PASSKEYS}/register/verify`,
      { challenge: bobs.challenge, response: authenticatorFor(t).register(bobs.options) },
      alice.headers,
    );
    expect(stolen.status).toBe(422);
    expect(stolen.json.error.code).toBe('invalid_registration_challenge');
    // A sealed sign-in envelope for a user (not anonymous) is refused for a discoverable sign-in.
    const forged = sealChallenge(t.deps.keyring, t.clock, 'webauthn', alice.userId, { ceremony: 'sign-in', challenge: 'AAAAAAAAAAAAAAAAAAAAAA' });
    const response = alice.authenticator.authenticate({ challenge: 'AAAAAAAAAAAAAAAAAAAAAA', rpId: '127.0.0.1' });
    expectRefused(await verify(t, { challenge: forged, response }), 'invalid_challenge');
  });

  test('a second-factor envelope is bound to its own pn2fa challenge', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const firstPending = (await signIn(t, alice.email, alice.password)).res.json.challenge as string;
    const secondPending = (await signIn(t, alice.email, alice.password)).res.json.challenge as string;
    const start = await signInOptions(t, { twoFactorChallenge: firstPending });
    const res = await verify(t, { challenge: start.challenge, response: alice.authenticator.authenticate(start.options), twoFactorChallenge: secondPending });
    expectRefused(res, 'invalid_challenge');
  });
});

describe('origin, RP ID and client data', () => {
  test('an assertion made for another origin (phishing page) is refused', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    expectRefused(await forgedSignIn(t, alice.authenticator, { origin: 'https://panel.example.evil' }));
    expectRefused(await forgedSignIn(t, alice.authenticator, { origin: 'http://127.0.0.1:3001' }));
  });

  test('an assertion for another RP ID is refused', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    expectRefused(await forgedSignIn(t, alice.authenticator, { rpId: 'evil.example' }));
  });

  test('a registration from another origin or for another RP ID is refused', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    for (const overrides of [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { type: 'webauthn.get' }, { userPresent: false }]) {
      const start = (await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers)).json;
      const res = await t.request(
        'POST',
        `${PASSKEYS}/register/verify`,
        { challenge: start.challenge, response: authenticatorFor(t).register(start.options, overrides) },
        alice.headers,
      );
      expect({ overrides, status: res.status, code: res.json.error.code }).toEqual({ overrides, status: 422, code: 'registration_not_verified' });
    }
    expect(t.db.select().from(passkey).all()).toHaveLength(1);
  });

  test('the wrong ceremony type, a challenge of other options, or a bad signature are refused', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    expectRefused(await forgedSignIn(t, alice.authenticator, { type: 'webauthn.create' }));
    const other = await signInOptions(t);
    expectRefused(await forgedSignIn(t, alice.authenticator, { challenge: other.options.challenge }));
    const start = await signInOptions(t);
    const response = alice.authenticator.authenticate(start.options);
    const signature = Buffer.from(response.response.signature, 'base64url');
    signature[signature.length - 1]! ^= 1;
    expectRefused(await verify(t, { challenge: start.challenge, response: { ...response, response: { ...response.response, signature: signature.toString('base64url') } } }));
  });

  test('a passkey alone needs user verification; a missing or foreign user handle is refused', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const bob = await userWithPasskey(t);
    expectRefused(await forgedSignIn(t, alice.authenticator, { userVerified: false }));
    expectRefused(await forgedSignIn(t, alice.authenticator, { userPresent: false }));
    expectRefused(await forgedSignIn(t, alice.authenticator, { userHandle: null }));
    expectRefused(await forgedSignIn(t, alice.authenticator, { userHandle: Buffer.from(bob.userId).toString('base64url') }));
    expect((await passkeySignIn(t, alice.authenticator)).status).toBe(200);
  });

  test("another user's passkey cannot complete someone's pending second factor", async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const mallory = await userWithPasskey(t);
    const pending = (await signIn(t, alice.email, alice.password)).res.json.challenge as string;
    const start = await signInOptions(t, { twoFactorChallenge: pending });
    const response = mallory.authenticator.authenticate(start.options, { credentialId: mallory.credentialId });
    expectRefused(await verify(t, { challenge: start.challenge, response, twoFactorChallenge: pending }));
    expect(t.db.select().from(session).where(eq(session.userId, alice.userId)).all()).toHaveLength(1); // the registration session only
  });

  test('an unknown credential is refused like a bad one', async () => {
    const t = createTestApp();
    await userWithPasskey(t);
    const stranger = authenticatorFor(t);
    stranger.register({ challenge: 'AAAA', rp: { id: '127.0.0.1', name: 'Panel' }, user: { id: 'eA', name: 'x' } });
    expectRefused(await passkeySignIn(t, stranger));
  });

  test('a credential id registered before cannot be registered again (even by another user)', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const bob = await userWithPasskey(t);
    const start = (await t.request('POST', `${PASSKEYS}/register/options`, undefined, bob.headers)).json;
    const response = authenticatorFor(t).register(start.options, { credentialId: alice.credentialId });
    const res = await t.request('POST', `${PASSKEYS}/register/verify`, { challenge: start.challenge, response }, bob.headers);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('passkey_already_registered');
    expect(t.db.select().from(passkey).where(eq(passkey.credentialId, alice.credentialId)).get()!.userId).toBe(alice.userId);
  });
});

describe('CSRF and rate limits', () => {
  test('verify writes the session cookie: it needs the Origin of PANEL_PUBLIC_URL', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const start = await signInOptions(t);
    const response = alice.authenticator.authenticate(start.options);
    const res = await t.request('POST', `${PASSKEYS}/sign-in/verify`, { challenge: start.challenge, response }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  test('failures per address are limited (429 with Retry-After), before anything is verified', async () => {
    const t = createTestApp(BEHIND_LOCAL_PROXY);
    const alice = await userWithPasskey(t);
    const attacker = { 'x-forwarded-for': '203.0.113.9' };
    // 49 failures against other accounts (seeded), then one real one against alice.
    t.db.insert(rateLimit).values(Array.from({ length: 49 }, () => ({ key: 'passkey:address:203.0.113.9', failedAt: t.clock.now() }))).run();
    const failing = await signInOptions(t, {}, attacker);
    const failed = await verify(t, { challenge: failing.challenge, response: alice.authenticator.authenticate(failing.options, { origin: 'https://evil.example' }) }, attacker);
    expect(failed.status).toBe(401);
    const start = await signInOptions(t, {}, attacker);
    const limited = await verify(t, { challenge: start.challenge, response: alice.authenticator.authenticate(start.options) }, attacker);
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('set-cookie')).toBeNull();
    // Another address is not affected.
    expect((await passkeySignIn(t, alice.authenticator, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(200);
  });

  test('failures per account are limited across addresses, for the addresses that failed only', async () => {
    const t = createTestApp(BEHIND_LOCAL_PROXY);
    const alice = await userWithPasskey(t);
    for (let i = 0; i < 100; i++) {
      const address = { 'x-forwarded-for': `192.0.2.${i}` };
      const start = await signInOptions(t, {}, address);
      const res = await verify(t, { challenge: start.challenge, response: alice.authenticator.authenticate(start.options, { userVerified: false }) }, address);
      expect(res.status).toBe(401);
    }
    expect(t.db.select().from(rateLimit).where(eq(rateLimit.key, `passkey:account:${alice.userId}`)).all()).toHaveLength(100);
    expect((await passkeySignIn(t, alice.authenticator, { 'x-forwarded-for': '192.0.2.7' })).status).toBe(429);
    // The owner from an address without failures is not locked out (issue 13 M1).
    expect((await passkeySignIn(t, alice.authenticator, { 'x-forwarded-for': '198.51.100.77' })).status).toBe(200);
  });

  test('registration failures count too', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const start = (await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers)).json;
    await registerPasskey(t, alice.headers, authenticatorFor(t)); // a success counts nothing
    const bad = await t.request(
      'POST',
      `${PASSKEYS}/register/verify`,
      { challenge: start.challenge, response: authenticatorFor(t).register(start.options, { origin: 'https://evil.example' }) },
      alice.headers,
    );
    expect(bad.status).toBe(422);
    expect(t.db.select().from(rateLimit).where(eq(rateLimit.key, `passkey:account:${alice.userId}`)).all()).toHaveLength(1);
  });
});

describe('recent sign-in (a stolen session cookie cannot add or remove passkeys)', () => {
  /** What a refused request must leave untouched: passkeys, spent envelopes, counted failures. */
  const snapshot = (t: TestApp) =>
    JSON.stringify([t.db.select().from(passkey).all(), t.db.select().from(consumedChallenge).all(), t.db.select().from(rateLimit).all()]);

  const expectReauthentication = (res: { status: number; json: any }) => {
    expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status: 403, code: 'reauthentication_required' });
    expect(res.json.error.message).toContain('sign in again');
  };

  const registerVerify = (t: TestApp, headers: Record<string, string>, start: { challenge: string; options: any }, authenticator = authenticatorFor(t)) =>
    t.request('POST', `${PASSKEYS}/register/verify`, { challenge: start.challenge, response: authenticator.register(start.options) }, headers);

  test('registering needs a session signed in within 15 minutes, at the options and the verify step', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t); // registered by a fresh session
    expect(t.db.select().from(passkey).all()).toHaveLength(1);

    // Options fetched in time, verified once the session is 15 minutes old: refused, the
    // envelope is not spent and no failure is counted.
    t.clock.advance(RECENT_SIGN_IN_MS - 60_000);
    const start = await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers);
    expect(start.status).toBe(200);
    t.clock.advance(60_000);
    const before = snapshot(t);
    expectReauthentication(await registerVerify(t, alice.headers, start.json));
    expectReauthentication(await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers));
    expect(snapshot(t)).toBe(before);
    expect(t.db.select().from(passkey).all()).toHaveLength(1);
    // The session itself still works for everything else.
    expect((await t.request('GET', PASSKEYS, undefined, alice.headers)).status).toBe(200);
    expect((await t.request('PATCH', `${PASSKEYS}/${alice.passkeyId}`, { name: 'Old laptop' }, alice.headers)).status).toBe(200);

    // Signing in again (a passkey alone, the account has one) makes it work, even with the same envelope.
    const again = await passkeySignIn(t, alice.authenticator);
    expect(again.status).toBe(200);
    const fresh = { cookie: cookieFrom(t, again.headers)!, ...originOf(t) };
    expect((await registerVerify(t, fresh, start.json)).status).toBe(201);
    expect((await registerPasskey(t, fresh, authenticatorFor(t))).done.status).toBe(201);
    expect(t.db.select().from(passkey).where(eq(passkey.userId, alice.userId)).all()).toHaveLength(3);
  });

  test('the window is 15 minutes from the sign-in, not from the last request', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    for (let minute = 1; minute < RECENT_SIGN_IN_MS / 60_000; minute++) {
      t.clock.advance(60_000);
      expect((await t.request('GET', PASSKEYS, undefined, alice.headers)).status).toBe(200); // slides the session
    }
    t.clock.advance(60_000 - 1);
    expect((await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers)).status).toBe(200);
    t.clock.advance(1);
    expectReauthentication(await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers));
  });

  test('deleting a passkey needs a recent sign-in too; a stale session learns nothing about ids', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const bob = await userWithPasskey(t);
    t.clock.advance(RECENT_SIGN_IN_MS);
    const before = snapshot(t);
    expectReauthentication(await t.request('DELETE', `${PASSKEYS}/${alice.passkeyId}`, undefined, alice.headers));
    expectReauthentication(await t.request('DELETE', `${PASSKEYS}/${bob.passkeyId}`, undefined, alice.headers));
    expectReauthentication(await t.request('DELETE', `${PASSKEYS}/01940000-0000-7000-8000-000000000001`, undefined, alice.headers));
    expect(snapshot(t)).toBe(before);

    const again = await passkeySignIn(t, alice.authenticator);
    const fresh = { cookie: cookieFrom(t, again.headers)!, ...originOf(t) };
    expect((await t.request('DELETE', `${PASSKEYS}/${bob.passkeyId}`, undefined, fresh)).status).toBe(404);
    expect((await t.request('DELETE', `${PASSKEYS}/${alice.passkeyId}`, undefined, fresh)).status).toBe(204);
    expect(t.db.select().from(passkey).all().map((row) => row.id)).toEqual([bob.passkeyId]);
  });

  test('API tokens still answer 403 session_required, fresh or not', async () => {
    const t = createTestApp();
    const alice = await userWithPasskey(t);
    const bearer = tokenFor(t, { userId: alice.userId, organizationId: alice.organizationId!, headers: {} }, 'owner');
    const start = (await t.request('POST', `${PASSKEYS}/register/options`, undefined, alice.headers)).json;
    for (const res of [
      await t.request('POST', `${PASSKEYS}/register/options`, undefined, bearer),
      await registerVerify(t, bearer, start),
      await t.request('DELETE', `${PASSKEYS}/${alice.passkeyId}`, undefined, bearer),
    ]) {
      expect({ status: res.status, code: res.json.error.code }).toEqual({ status: 403, code: 'session_required' });
    }
    expect(t.db.select().from(passkey).all()).toHaveLength(1);
  });
});
