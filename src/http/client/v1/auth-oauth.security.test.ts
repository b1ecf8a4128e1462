import { afterEach, describe, expect, test } from 'bun:test';
import { sealChallenge } from '../../../crypto/index.ts';
import { oauthIdentity, session } from '../../../db/schema/index.ts';
import { browserSubject } from '../../../domain/identity/oauth.ts';
import { buildApp } from '../../../app.ts';
import { createLogger } from '../../../lib/logger.ts';
import type { FakeOAuthProvider } from '../../../../test/fake-oauth-provider.ts';
import type { TestApp } from '../../../../test/harness.ts';
import { createPasswordUser } from '../../../../test/identity.ts';
import { approve, callback, errorOf, expectRedirectOnly, OAUTH, oauthSignIn, oauthTestApp, type Provider, startFlow } from './auth-oauth.helpers.ts';

const providers: FakeOAuthProvider[] = [];
afterEach(() => {
  for (const fake of providers.splice(0)) fake.stop();
});

/** An installed app (one password user: alice@example.test) wired to a fake provider. */
async function setup(...args: Parameters<typeof oauthTestApp>) {
  const made = oauthTestApp(...args);
  providers.push(made.fake);
  const alice = await createPasswordUser(made.t, { email: 'alice@example.test' });
  made.fake.nextUser = { subject: 'oidc-alice', email: 'alice@example.test', emailVerified: true, name: 'Alice' };
  return { ...made, alice };
}

const sessions = (t: TestApp) => t.db.select().from(session).all().length;
const links = (t: TestApp) => t.db.select().from(oauthIdentity).all().length;

describe('linking only through verified e-mail', () => {
  test('OIDC: an unverified address matching a user is not linked, not even with sign-up on', async () => {
    for (const overrides of [{}, { runtime: 'development' as const, isSignupEnabled: true }]) {
      const { t, fake } = await setup(overrides);
      fake.nextUser = { subject: 'mallory', email: 'alice@example.test', emailVerified: false };
      const before = sessions(t);
      const { res } = await oauthSignIn(t, 'oidc');
      expect(errorOf(res)).toBe('email_not_verified');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(sessions(t)).toBe(before);
      expect(links(t)).toBe(0);
    }
  });

  test('OIDC: email_verified must be true, not merely present or truthy-looking', async () => {
    for (const verified of [undefined, 'yes', 1, 'false']) {
      const { t, fake } = await setup();
      fake.nextUser = { subject: 'mallory', email: 'alice@example.test', emailVerified: true };
      fake.tampering = { claims: { email_verified: verified } };
      expect(errorOf((await oauthSignIn(t, 'oidc')).res)).toBe('email_not_verified');
      expect(links(t)).toBe(0);
    }
  });

  test('GitHub: an unverified address is ignored even when it is the primary one', async () => {
    const { t, fake } = await setup();
    fake.nextUser = {
      subject: '1337',
      githubEmails: [
        { email: 'alice@example.test', verified: false, primary: true },
        { email: 'mallory@evil.example', verified: true, primary: false },
      ],
    };
    const { res } = await oauthSignIn(t, 'github');
    expect(errorOf(res)).toBe('signup_disabled');
    expect(links(t)).toBe(0);
  });

  test('a second external account cannot take over an already linked user', async () => {
    const { t, fake } = await setup();
    expect((await oauthSignIn(t, 'oidc')).res.headers.get('location')).toBe('/');
    fake.nextUser = { subject: 'another-account', email: 'alice@example.test', emailVerified: true };
    expect(errorOf((await oauthSignIn(t, 'oidc')).res)).toBe('account_conflict');
    expect(t.db.select().from(oauthIdentity).all().map((row) => row.subject)).toEqual(['oidc-alice']);
  });
});

describe('state (pnoauth)', () => {
  test('a replayed callback is refused before the provider is asked again', async () => {
    const { t, fake } = await setup();
    const { res, callbackUrl, cookie } = await oauthSignIn(t, 'oidc');
    expect(res.headers.get('location')).toBe('/');
    const tokenCalls = fake.log.filter((entry) => entry.path === '/oidc/token').length;
    const before = sessions(t);
    const replay = await callback(t, callbackUrl, cookie);
    expect(errorOf(replay)).toBe('invalid_state');
    expect(replay.headers.get('set-cookie')).toBeNull();
    expect(fake.log.filter((entry) => entry.path === '/oidc/token').length).toBe(tokenCalls);
    expect(sessions(t)).toBe(before);
  });

  test('a callback completed in another browser (login CSRF, leaked URL) is refused', async () => {
    const { t } = await setup();
    const attacker = await startFlow(t, 'oidc');
    const callbackUrl = await approve(attacker.location);
    const victim = await startFlow(t, 'oidc'); // the victim has a binding cookie of their own
    expect(victim.cookie).not.toBe(attacker.cookie);
    expect(errorOf(await callback(t, callbackUrl, victim.cookie))).toBe('invalid_state');
    expect(errorOf(await callback(t, callbackUrl, null))).toBe('invalid_state');
    expect(errorOf(await callback(t, callbackUrl, 'panel_oauth=short'))).toBe('invalid_state');
    // The refusals did not burn the state: the attacker's own browser could still finish (it is theirs).
    expect((await callback(t, callbackUrl, attacker.cookie)).headers.get('location')).toBe('/');
  });

  test('an expired state is refused (ten minutes)', async () => {
    const { t } = await setup();
    const start = await startFlow(t, 'oidc');
    const callbackUrl = await approve(start.location);
    t.clock.advance(10 * 60_000);
    expect(errorOf(await callback(t, callbackUrl, start.cookie))).toBe('invalid_state');
  });

  test('a state issued for one provider is refused by the other', async () => {
    const { t } = await setup();
    const start = await startFlow(t, 'github');
    const callbackUrl = await approve(start.location);
    const crossed = new URL(callbackUrl.href.replace('/oauth/github/callback', '/oauth/oidc/callback'));
    expect(errorOf(await callback(t, crossed, start.cookie))).toBe('invalid_state');
  });

  test('forged, foreign-purpose and garbage states are refused', async () => {
    const { t } = await setup();
    const start = await startFlow(t, 'oidc');
    const binding = start.cookie!.split('=')[1]!;
    const callbackUrl = await approve(start.location);
    const withState = (state: string) => {
      const url = new URL(callbackUrl);
      url.searchParams.set('state', state);
      return url;
    };
    const data = { provider: 'oidc', verifier: 'v'.repeat(43), nonce: 'n', returnTo: '/' };
    const states = [
      'garbage',
      'x'.repeat(5000),
      // Sealed for this browser but as another purpose: a pn2fa or pnwebauthn envelope.
      sealChallenge(t.deps.keyring, t.clock, '2fa', browserSubject(binding), data),
      sealChallenge(t.deps.keyring, t.clock, 'webauthn', browserSubject(binding), data),
      // A genuine pnoauth state of another browser.
      sealChallenge(t.deps.keyring, t.clock, 'oauth', browserSubject('A'.repeat(43)), data),
    ];
    for (const state of states) expect({ state: state.slice(0, 12), error: errorOf(await callback(t, withState(state), start.cookie)) }).toEqual({ state: state.slice(0, 12), error: 'invalid_state' });
  });

  test('a provider error (the user declined) is reported, and spends the state', async () => {
    const { t } = await setup();
    const start = await startFlow(t, 'oidc');
    const callbackUrl = await approve(start.location);
    const declined = new URL(callbackUrl);
    declined.searchParams.delete('code');
    declined.searchParams.set('error', 'access_denied');
    expect(errorOf(await callback(t, declined, start.cookie))).toBe('access_denied');
    expect(errorOf(await callback(t, callbackUrl, start.cookie))).toBe('invalid_state');
  });
});

describe('PKCE', () => {
  test('a code issued for one flow and injected with another flow’s state is refused by the provider', async () => {
    for (const provider of ['oidc', 'github'] as Provider[]) {
      const { t, fake } = await setup();
      const first = await startFlow(t, provider);
      const second = await startFlow(t, provider, { cookie: first.cookie! }); // same browser, two flows
      const firstCallback = await approve(first.location);
      const secondCallback = await approve(second.location);
      // The code of the first flow with the state (and so the verifier) of the second.
      const injected = new URL(secondCallback);
      injected.searchParams.set('code', firstCallback.searchParams.get('code')!);
      const res = await callback(t, injected, first.cookie);
      expect(errorOf(res)).toBe('provider_error');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(links(t)).toBe(0);
      // The provider saw a verifier that does not hash to the code's challenge.
      const exchange = fake.log.filter((entry) => entry.path.endsWith('token')).at(-1)!;
      expect(exchange.params.code).toBe(firstCallback.searchParams.get('code')!);
    }
  });
});

describe('ID token checks', () => {
  const cases: [string, (fake: FakeOAuthProvider) => void][] = [
    ['a signature by another key', (fake) => (fake.tampering = { foreignKey: true })],
    ['alg none', (fake) => (fake.tampering = { alg: 'none' })],
    ['alg HS256', (fake) => (fake.tampering = { alg: 'HS256' })],
    ['another nonce', (fake) => (fake.tampering = { claims: { nonce: 'not-the-nonce' } })],
    ['no nonce', (fake) => (fake.tampering = { claims: { nonce: undefined } })],
    ['another audience', (fake) => (fake.tampering = { claims: { aud: 'someone-else' } })],
    ['an extra audience', (fake) => (fake.tampering = { claims: { aud: [fake.clientId, 'someone-else'] } })],
    ['another authorized party', (fake) => (fake.tampering = { claims: { azp: 'someone-else' } })],
    ['another issuer', (fake) => (fake.tampering = { claims: { iss: 'https://evil.example' } })],
    ['an expired token', (fake) => (fake.tampering = { claims: { exp: Math.floor(Date.parse('2025-12-31T23:00:00Z') / 1000) } })],
    ['no expiry', (fake) => (fake.tampering = { claims: { exp: undefined } })],
    ['issued in the future', (fake) => (fake.tampering = { claims: { iat: Math.floor(Date.parse('2026-01-01T01:00:00Z') / 1000) } })],
    ['no subject', (fake) => (fake.tampering = { claims: { sub: undefined } })],
  ];
  for (const [name, tamper] of cases) {
    test(`refused: ${name}`, async () => {
      const { t, fake } = await setup();
      tamper(fake);
      const before = sessions(t);
      const { res } = await oauthSignIn(t, 'oidc');
      expect(errorOf(res)).toBe('invalid_id_token');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(sessions(t)).toBe(before);
      expect(links(t)).toBe(0);
    });
  }

  test('no ID token at all is a provider error', async () => {
    const { t, fake } = await setup();
    fake.tampering = { omit: true };
    expect(errorOf((await oauthSignIn(t, 'oidc')).res)).toBe('provider_error');
  });

  test('a discovery document naming another issuer is refused at start', async () => {
    const { t, fake } = await setup();
    fake.discoveryIssuer = 'https://evil.example';
    const res = await t.request('GET', `${OAUTH}/oidc/start`);
    expect(errorOf(res)).toBe('provider_unavailable');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  test('an authorization response naming another issuer (RFC 9207 mix-up) is refused', async () => {
    const { t } = await setup({}, { sendIssuer: true });
    const start = await startFlow(t, 'oidc');
    const callbackUrl = await approve(start.location);
    callbackUrl.searchParams.set('iss', 'https://evil.example');
    expect(errorOf(await callback(t, callbackUrl, start.cookie))).toBe('provider_error');
  });
});

describe('returnTo (open redirects)', () => {
  const attempts = [
    '//evil.com',
    '//evil.com/path',
    'https://evil.com',
    'http://127.0.0.1:3000.evil.com/',
    '/\\evil.com',
    '\\\\evil.com',
    '/.//evil.com',
    '/%2e//evil.com',
    'javascript:alert(1)',
    'evil.com',
    ' /projects',
    '/pro jects',
    '/\tevil',
    '',
    `/${'a'.repeat(600)}`,
  ];
  test('every attempt ends at / after signing in', async () => {
    const { t } = await setup();
    for (const returnTo of attempts) {
      const { res } = await oauthSignIn(t, 'oidc', { returnTo });
      expectRedirectOnly(res);
      expect({ returnTo, location: res.headers.get('location') }).toEqual({ returnTo, location: '/' });
    }
  });

  test('same-origin paths are kept', async () => {
    const { t } = await setup();
    for (const returnTo of ['/', '/projects/123?tab=env#vars', '/a/../b', '/%2F%2Fstill-a-path']) {
      const { res } = await oauthSignIn(t, 'oidc', { returnTo });
      const location = res.headers.get('location')!;
      expect(location.startsWith('/') && !location.startsWith('//') && !location.includes('\\')).toBe(true);
    }
  });
});

describe('the callback only ever redirects', () => {
  test('whatever arrives, the answer is a 302 without a body', async () => {
    const { t } = await setup();
    const start = await startFlow(t, 'oidc');
    const cookie = { cookie: start.cookie! };
    const requests: [string, Record<string, string>][] = [
      [`${OAUTH}/oidc/callback`, {}],
      [`${OAUTH}/oidc/callback?code=abc`, cookie],
      [`${OAUTH}/oidc/callback?state=abc&code=abc`, cookie],
      [`${OAUTH}/oidc/callback?state=&code=`, cookie],
      [`${OAUTH}/oidc/callback?state=a&state=b&code=c&code=d`, cookie],
      [`${OAUTH}/oidc/callback?error=server_error&error_description=%3Cscript%3E`, cookie],
      [`${OAUTH}/nope/callback?state=a&code=b`, cookie],
      [`${OAUTH}/${'x'.repeat(300)}/callback`, cookie],
      [`${OAUTH}/oidc/callback?code=${'c'.repeat(5000)}`, cookie],
      [`${OAUTH}/oidc/start?returnTo=${encodeURIComponent('//evil.com')}`, { cookie: 'panel_oauth=%ZZ' }],
      [`${OAUTH}/nope/start`, {}],
    ];
    for (const [path, headers] of requests) {
      const res = await t.request('GET', path, undefined, { ...headers, accept: 'application/json' });
      expectRedirectOnly(res);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  test('before the install it redirects too (install_required)', async () => {
    const made = oauthTestApp();
    providers.push(made.fake);
    const res = await made.t.request('GET', `${OAUTH}/oidc/callback?state=a&code=b`);
    expect(errorOf(res)).toBe('install_required');
    expect(errorOf(await made.t.request('GET', `${OAUTH}/oidc/start`))).toBe('install_required');
  });

  test('an unreachable provider is a redirect with provider_unavailable', async () => {
    const { t, fake } = await setup();
    const start = await startFlow(t, 'github'); // GitHub needs no discovery to start
    const callbackUrl = await approve(start.location);
    fake.stop();
    expect(errorOf(await callback(t, callbackUrl, start.cookie))).toBe('provider_unavailable');
    expect(errorOf(await t.request('GET', `${OAUTH}/oidc/start`))).toBe('provider_unavailable');
  });
});

describe('secrets stay out of answers and logs', () => {
  test('client secret, code, state, tokens and the binding never reach a response or a log line', async () => {
    const made = oauthTestApp();
    providers.push(made.fake);
    const lines: string[] = [];
    const app = buildApp({ ...made.t.deps, logger: createLogger('debug', (line) => lines.push(line)) });
    const t: TestApp = {
      ...made.t,
      app,
      request: async (method, path, body, headers = {}) => {
        const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
        const text = await response.text();
        return { status: response.status, headers: response.headers, text, json: undefined };
      },
    };
    await createPasswordUser(t, { email: 'alice@example.test' });
    made.fake.nextUser = { subject: 'oidc-alice', email: 'alice@example.test', emailVerified: true };
    const { res, callbackUrl, start } = await oauthSignIn(t, 'oidc');
    expect(res.headers.get('location')).toBe('/');
    await new Promise((resolve) => setImmediate(resolve)); // the access log is written after the response
    const everything = [lines.join('\n'), res.headers.get('location'), start.res.text, res.text].join('\n');
    const tokenAnswer = made.fake.log.find((entry) => entry.path === '/oidc/token')!;
    for (const secret of [made.fake.clientSecret, callbackUrl.searchParams.get('code')!, callbackUrl.searchParams.get('state')!, tokenAnswer.params.code_verifier!, start.cookie!.split('=')[1]!]) {
      expect(everything).not.toContain(secret);
    }
    expect(lines.some((line) => line.includes('/oauth/oidc/callback'))).toBe(true);
  });
});

