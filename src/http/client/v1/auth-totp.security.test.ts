import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { totpCode } from '../../../auth/totp.ts';
import { sealChallenge } from '../../../crypto/index.ts';
import { recoveryCode, session, userTotp } from '../../../db/schema/index.ts';
import { RECENT_SIGN_IN_MS } from '../../../contract/identity.ts';
import { BEHIND_LOCAL_PROXY, type TestApp, createTestApp } from '../../../../test/harness.ts';
import { createPasswordUser, originOf, signIn, tokenFor } from '../../../../test/identity.ts';

const AUTH = '/api/client/v1/auth';
const STEP_MS = 30_000;

/** A user with TOTP enabled: their secret, recovery codes and a signed-in session. */
async function withTotp(t: TestApp) {
  const person = await createPasswordUser(t);
  const { headers } = await signIn(t, person.email, person.password);
  const enrol = await t.request('POST', `${AUTH}/totp/enrol`, undefined, headers!);
  expect(enrol.status).toBe(201);
  const secret: string = enrol.json.secret;
  const confirm = await t.request('POST', `${AUTH}/totp/confirm`, { code: totpCode(secret, t.clock.now()) }, headers!);
  expect(confirm.status).toBe(200);
  t.clock.advance(STEP_MS); // the confirming code's step is spent
  return { ...person, secret, recoveryCodes: confirm.json.recoveryCodes as string[], headers: headers! };
}

async function challengeFor(t: TestApp, person: { email: string; password: string }) {
  const { res } = await signIn(t, person.email, person.password);
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('two_factor_required');
  expect(res.headers.get('set-cookie')).toBeNull();
  return res.json.challenge as string;
}

const second = (t: TestApp, kind: 'totp' | 'recovery', challenge: string, code: string, extra: Record<string, string> = {}) =>
  t.request('POST', `${AUTH}/sign-in/${kind}`, { challenge, code }, { ...originOf(t), ...extra });

describe('TOTP enrolment', () => {
  test('the secret is shown once as base32 and an otpauth URI, and stored sealed', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t);
    const { headers } = await signIn(t, person.email, person.password);
    const res = await t.request('POST', `${AUTH}/totp/enrol`, undefined, headers!);
    expect(res.status).toBe(201);
    expect(res.json.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(res.json.uri).toStartWith('otpauth://totp/Panel:');
    expect(res.json.uri).toContain(`secret=${res.json.secret}`);
    const row = t.db.select().from(userTotp).get()!;
    expect(row.secret).toStartWith('pnsecret.v1.');
    expect(row.secret).not.toContain(res.json.secret);
    expect(row.confirmedAt).toBeNull();
    // Not enabled until confirmed: sign-in still gives a session directly.
    expect((await signIn(t, person.email, person.password)).res.json.status).toBe('signed_in');
  });

  test('confirming needs a valid code; it answers ten distinct recovery codes, stored hashed', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t);
    const { headers } = await signIn(t, person.email, person.password);
    const { secret } = (await t.request('POST', `${AUTH}/totp/enrol`, undefined, headers!)).json;
    const wrong = await t.request('POST', `${AUTH}/totp/confirm`, { code: '000000' === totpCode(secret, t.clock.now()) ? '111111' : '000000' }, headers!);
    expect(wrong.status).toBe(422);
    expect(wrong.json.error).toMatchObject({ code: 'wrong_code', path: 'code' });
    const ok = await t.request('POST', `${AUTH}/totp/confirm`, { code: totpCode(secret, t.clock.now()) }, headers!);
    expect(ok.status).toBe(200);
    const codes: string[] = ok.json.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    const stored = JSON.stringify(t.db.select().from(recoveryCode).all());
    for (const code of codes) expect(stored).not.toContain(code);
    // Enrolling again while enabled: 409; confirming twice: 409.
    expect((await t.request('POST', `${AUTH}/totp/enrol`, undefined, headers!)).status).toBe(409);
    expect((await t.request('POST', `${AUTH}/totp/confirm`, { code: '123456' }, headers!)).json.error.code).toBe('totp_not_pending');
  });

  test('API tokens cannot manage second factors; bad input is 422; anonymous is 401', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t);
    const bearer = tokenFor(t, { userId: person.userId, organizationId: person.organizationId!, headers: {} }, 'owner');
    const res = await t.request('POST', `${AUTH}/totp/enrol`, undefined, bearer);
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('session_required');
    const { headers } = await signIn(t, person.email, person.password);
    expect((await t.request('POST', `${AUTH}/totp/confirm`, { code: 7 }, headers!)).json.error.path).toBe('code');
    expect((await t.request('POST', `${AUTH}/totp/enrol`, undefined, originOf(t))).status).toBe(401);
  });
});

describe('recent sign-in for TOTP enrolment', () => {
  // The confirming code proves the new secret only: a stolen session cookie could otherwise
  // put its own authenticator on the account (and lock the owner out of signing in).
  test('enrol and confirm need a session signed in within 15 minutes; disable and new recovery codes need a code instead', async () => {
    const t = createTestApp();
    const person = await createPasswordUser(t);
    const { headers } = await signIn(t, person.email, person.password);
    const rows = () => JSON.stringify([t.db.select().from(userTotp).all(), t.db.select().from(recoveryCode).all()]);
    const expectReauthentication = (res: { status: number; json: any }) =>
      expect({ status: res.status, code: res.json.error.code }).toEqual({ status: 403, code: 'reauthentication_required' });

    t.clock.advance(RECENT_SIGN_IN_MS);
    expectReauthentication(await t.request('POST', `${AUTH}/totp/enrol`, undefined, headers!));
    expect(rows()).toBe(JSON.stringify([[], []]));

    // Enrolled in time, confirmed too late: still pending, no recovery codes.
    const again = (await signIn(t, person.email, person.password)).headers!;
    const { secret } = (await t.request('POST', `${AUTH}/totp/enrol`, undefined, again)).json;
    t.clock.advance(RECENT_SIGN_IN_MS);
    const before = rows();
    expectReauthentication(await t.request('POST', `${AUTH}/totp/confirm`, { code: totpCode(secret, t.clock.now()) }, again));
    expect(rows()).toBe(before);
    expect(t.db.select().from(userTotp).get()!.confirmedAt).toBeNull();

    const third = (await signIn(t, person.email, person.password)).headers!;
    const confirmed = await t.request('POST', `${AUTH}/totp/confirm`, { code: totpCode(secret, t.clock.now()) }, third);
    expect(confirmed.status).toBe(200);

    // Regenerating recovery codes and disabling prove a code: an old session may do them.
    t.clock.advance(RECENT_SIGN_IN_MS + STEP_MS);
    const renewed = await t.request('POST', `${AUTH}/recovery-codes`, { code: totpCode(secret, t.clock.now()) }, third);
    expect(renewed.status).toBe(200);
    t.clock.advance(STEP_MS);
    expect((await t.request('POST', `${AUTH}/totp/disable`, { code: totpCode(secret, t.clock.now()) }, third)).status).toBe(204);
  });
});

describe('sign-in with TOTP', () => {
  test('a pending pn2fa challenge, completed with a code, gives the session', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    const challenge = await challengeFor(t, person);
    expect(challenge).toStartWith('pn2fa.v1.');
    const done = await second(t, 'totp', challenge, totpCode(person.secret, t.clock.now()));
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ status: 'signed_in', user: { id: person.userId } });
    expect(done.headers.get('set-cookie')).toStartWith('panel_session=pns_');
  });

  test('codes of the previous and next step are accepted (±1 step drift), two steps off is not', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    t.clock.advance(10 * STEP_MS);
    const now = t.clock.now().getTime();
    expect((await second(t, 'totp', await challengeFor(t, person), totpCode(person.secret, new Date(now - STEP_MS)))).status).toBe(200);
    expect((await second(t, 'totp', await challengeFor(t, person), totpCode(person.secret, new Date(now + STEP_MS)))).status).toBe(200);
    t.clock.advance(5 * STEP_MS);
    const later = t.clock.now().getTime();
    const stale = await second(t, 'totp', await challengeFor(t, person), totpCode(person.secret, new Date(later - 2 * STEP_MS)));
    expect(stale.status).toBe(401);
    expect(stale.json.error.code).toBe('invalid_code');
  });

  test('a code is accepted once: reusing it (even with a new challenge) is refused', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    const code = totpCode(person.secret, t.clock.now());
    expect((await second(t, 'totp', await challengeFor(t, person), code)).status).toBe(200);
    const reused = await second(t, 'totp', await challengeFor(t, person), code);
    expect(reused.status).toBe(401);
    expect(reused.json.error.code).toBe('invalid_code');
    // An older step's code is refused too once a later one was used.
    const earlier = totpCode(person.secret, new Date(t.clock.now().getTime() - STEP_MS));
    expect((await second(t, 'totp', await challengeFor(t, person), earlier)).status).toBe(401);
  });

  test('a wrong code does not burn the challenge; a used challenge cannot be replayed', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    const challenge = await challengeFor(t, person);
    const code = totpCode(person.secret, t.clock.now());
    expect((await second(t, 'totp', challenge, code === '123456' ? '654321' : '123456')).status).toBe(401);
    expect((await second(t, 'totp', challenge, code)).status).toBe(200);
    t.clock.advance(STEP_MS);
    const replay = await second(t, 'totp', challenge, totpCode(person.secret, t.clock.now()));
    expect(replay.status).toBe(401);
    expect(replay.json.error).toMatchObject({ code: 'invalid_challenge', path: 'challenge' });
    // The replay did not spend the new code.
    expect((await second(t, 'totp', await challengeFor(t, person), totpCode(person.secret, t.clock.now()))).status).toBe(200);
  });

  test('an expired challenge is refused', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    const challenge = await challengeFor(t, person);
    t.clock.advance(5 * 60_000);
    const res = await second(t, 'totp', challenge, totpCode(person.secret, t.clock.now()));
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_challenge');
  });

  test('foreign challenges are refused: another purpose, a forged one, another user\'s with my code', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    const other = await withTotp(t);
    const code = totpCode(person.secret, t.clock.now());
    const webauthn = sealChallenge(t.deps.keyring, t.clock, 'webauthn', person.userId);
    expect((await second(t, 'totp', webauthn, code)).json.error.code).toBe('invalid_challenge');
    const forged = (await challengeFor(t, person)).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await second(t, 'totp', forged, code)).json.error.code).toBe('invalid_challenge');
    // The other user's challenge checks the other user's secret: my code does not complete it.
    const theirs = await second(t, 'totp', await challengeFor(t, other), code);
    expect(theirs.status).toBe(401);
    expect(theirs.json.error.code).toBe('invalid_code');
    expect(t.db.select().from(session).where(eq(session.userId, other.userId)).all()).toHaveLength(1);
  });

  test('codes are limited per account: 10 failures in 15 minutes, then 429 with Retry-After', async () => {
    const t = createTestApp(BEHIND_LOCAL_PROXY);
    const person = await withTotp(t);
    const challenge = await challengeFor(t, person);
    const good = totpCode(person.secret, t.clock.now());
    const bad = good === '000000' ? '111111' : '000000';
    for (let i = 0; i < 10; i++) {
      expect((await second(t, 'totp', challenge, bad, { 'x-forwarded-for': `198.51.100.${i}` })).status).toBe(401);
    }
    const limited = await second(t, 'totp', challenge, good, { 'x-forwarded-for': '203.0.113.1' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe(String(15 * 60));
    // Recovery codes share the budget.
    expect((await second(t, 'recovery', challenge, person.recoveryCodes[0]!)).status).toBe(429);
  });
});

describe('recovery codes', () => {
  test('a recovery code completes the sign-in once', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    const [code] = person.recoveryCodes;
    const ok = await second(t, 'recovery', await challengeFor(t, person), code!.toUpperCase().replaceAll('-', ' '));
    expect(ok.status).toBe(200);
    const again = await second(t, 'recovery', await challengeFor(t, person), code!);
    expect(again.status).toBe(401);
    expect(again.json.error.code).toBe('invalid_code');
    // Another user's recovery code is no good either.
    const other = await withTotp(t);
    expect((await second(t, 'recovery', await challengeFor(t, person), other.recoveryCodes[0]!)).status).toBe(401);
  });

  test('regenerating needs a TOTP code and invalidates the old codes', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    const res = await t.request('POST', `${AUTH}/recovery-codes`, { code: totpCode(person.secret, t.clock.now()) }, person.headers);
    expect(res.status).toBe(200);
    expect(res.json.recoveryCodes).toHaveLength(10);
    expect((await second(t, 'recovery', await challengeFor(t, person), person.recoveryCodes[1]!)).status).toBe(401);
    expect((await second(t, 'recovery', await challengeFor(t, person), res.json.recoveryCodes[0])).status).toBe(200);
    expect((await t.request('POST', `${AUTH}/recovery-codes`, { code: '000000' }, person.headers)).status).toBe(422);
  });
});

describe('disabling TOTP (a second-factor reset)', () => {
  test('needs a code, revokes every session and issues a fresh one', async () => {
    const t = createTestApp();
    const person = await withTotp(t);
    const elsewhere = await second(t, 'totp', await challengeFor(t, person), totpCode(person.secret, t.clock.now()));
    const elsewhereCookie = { cookie: elsewhere.headers.get('set-cookie')!.split(';')[0]!, ...originOf(t) };
    t.clock.advance(STEP_MS);
    expect((await t.request('POST', `${AUTH}/totp/disable`, { code: '12345' }, person.headers)).status).toBe(422);
    const res = await t.request('POST', `${AUTH}/totp/disable`, { code: person.recoveryCodes[2] }, person.headers);
    expect(res.status).toBe(204);
    const fresh = { cookie: res.headers.get('set-cookie')!.split(';')[0]!, ...originOf(t) };
    expect((await t.request('GET', `${AUTH}/session`, undefined, person.headers)).status).toBe(401);
    expect((await t.request('GET', `${AUTH}/session`, undefined, elsewhereCookie)).status).toBe(401);
    expect((await t.request('GET', `${AUTH}/session`, undefined, fresh)).json.secondFactors).toEqual([]);
    expect(t.db.select().from(recoveryCode).all()).toHaveLength(0);
    expect((await signIn(t, person.email, person.password)).res.json.status).toBe('signed_in');
    expect((await t.request('POST', `${AUTH}/totp/disable`, { code: '123456' }, fresh)).json.error.code).toBe('totp_not_enabled');
  });
});
