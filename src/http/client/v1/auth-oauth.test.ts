import { afterEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { totpCode } from '../../../auth/totp.ts';
import { membership, oauthIdentity, user } from '../../../db/schema/index.ts';
import type { FakeOAuthProvider } from '../../../../test/fake-oauth-provider.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { cookieFrom, createPasswordUser, originOf, signIn } from '../../../../test/identity.ts';
import { userWithPasskey } from './auth-passkeys.helpers.ts';
import { approve, callback, errorOf, expectRedirectOnly, OAUTH, oauthSignIn, oauthTestApp, startFlow } from './auth-oauth.helpers.ts';

const providers: FakeOAuthProvider[] = [];
afterEach(() => {
  for (const fake of providers.splice(0)) fake.stop();
});

function setup(...args: Parameters<typeof oauthTestApp>) {
  const made = oauthTestApp(...args);
  providers.push(made.fake);
  return made;
}

const sessionUser = async (t: TestApp, headers: Headers) => {
  const cookie = cookieFrom(t, headers);
  expect(cookie).not.toBeNull();
  return (await t.request('GET', '/api/client/v1/auth/session', undefined, { cookie: cookie! })).json.user;
};

describe('providers', () => {
  test('lists what is configured, nothing when nothing is', async () => {
    const none = createTestApp();
    await createPasswordUser(none);
    expect((await none.request('GET', `${OAUTH}/providers`)).json).toEqual({ data: [] });
    const { t } = setup();
    await createPasswordUser(t);
    const res = await t.request('GET', `${OAUTH}/providers`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [{ id: 'github', name: 'GitHub' }, { id: 'oidc', name: 'Fake IdP' }] });
    expect(res.text).not.toContain('secret');
  });

  test('an unconfigured provider redirects with provider_not_configured', async () => {
    const t = createTestApp();
    await createPasswordUser(t);
    const res = await t.request('GET', `${OAUTH}/oidc/start`);
    expect(errorOf(res)).toBe('provider_not_configured');
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});

describe('OpenID Connect sign-in', () => {
  test('start: 302 to the provider with PKCE S256, a nonce, and a pnoauth state; a binding cookie', async () => {
    const { t, fake } = setup();
    await createPasswordUser(t);
    const { res, location } = await startFlow(t, 'oidc', { returnTo: '/projects' });
    expectRedirectOnly(res);
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.issuer}/authorize`);
    const params = Object.fromEntries(url.searchParams);
    expect(params).toMatchObject({
      response_type: 'code',
      client_id: fake.clientId,
      redirect_uri: 'http://127.0.0.1:3000/api/client/v1/auth/oauth/oidc/callback',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.state).toStartWith('pnoauth.v1.');
    expect(location).not.toContain(fake.clientSecret);
    expect(res.headers.get('set-cookie')).toMatch(/^panel_oauth=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  test('links an existing user by verified e-mail, signs in, and goes to returnTo', async () => {
    const { t, fake } = setup();
    const alice = await createPasswordUser(t, { email: 'alice@example.test' });
    fake.nextUser = { subject: 'oidc-alice', email: 'Alice@Example.test', emailVerified: true, name: 'Alice' };
    const { res } = await oauthSignIn(t, 'oidc', { returnTo: '/projects?tab=all#top' });
    expectRedirectOnly(res);
    expect(res.headers.get('location')).toBe('/projects?tab=all#top');
    expect((await sessionUser(t, res.headers)).id).toBe(alice.userId);
    const link = t.db.select().from(oauthIdentity).get()!;
    expect(link).toMatchObject({ userId: alice.userId, provider: 'oidc', subject: 'oidc-alice', email: 'alice@example.test' });
    expect(link.lastUsedAt?.getTime()).toBe(t.clock.now().getTime());
    // The confidential client authenticated with HTTP Basic; the PKCE verifier went with the code.
    const tokenRequest = fake.log.find((entry) => entry.path === '/oidc/token')!;
    expect(tokenRequest.authorization).toStartWith('Basic ');
    expect(tokenRequest.params).toMatchObject({ grant_type: 'authorization_code', redirect_uri: 'http://127.0.0.1:3000/api/client/v1/auth/oauth/oidc/callback' });
    expect(tokenRequest.params.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenRequest.params.client_secret).toBeUndefined();
  });

  test('once linked, the link signs in even after the provider’s address changes', async () => {
    const { t, fake } = setup();
    const alice = await createPasswordUser(t, { email: 'alice@example.test' });
    fake.nextUser = { subject: 'oidc-alice', email: 'alice@example.test', emailVerified: true };
    expect((await oauthSignIn(t, 'oidc')).res.headers.get('location')).toBe('/');
    fake.nextUser = { subject: 'oidc-alice', email: 'alice@new.example', emailVerified: false };
    const { res } = await oauthSignIn(t, 'oidc');
    expect(res.headers.get('location')).toBe('/');
    expect((await sessionUser(t, res.headers)).id).toBe(alice.userId);
    expect(t.db.select().from(oauthIdentity).all()).toHaveLength(1);
  });

  test('RS256 keys, client_secret_post and the RFC 9207 iss parameter work too', async () => {
    const { t, fake } = setup({}, { algorithm: 'RS256', authMethods: ['client_secret_post'], sendIssuer: true });
    const alice = await createPasswordUser(t, { email: 'alice@example.test' });
    const { res, callbackUrl } = await oauthSignIn(t, 'oidc');
    expect(callbackUrl.searchParams.get('iss')).toBe(fake.issuer);
    expect((await sessionUser(t, res.headers)).id).toBe(alice.userId);
    const tokenRequest = fake.log.find((entry) => entry.path === '/oidc/token')!;
    expect(tokenRequest.authorization).toBeNull();
    expect(tokenRequest.params.client_secret).toBe(fake.clientSecret);
  });

  test('an ID token without e-mail claims: the address comes from userinfo (same subject)', async () => {
    const { t, fake } = setup();
    const alice = await createPasswordUser(t, { email: 'alice@example.test' });
    fake.nextUser = { subject: 'oidc-alice', email: 'alice@example.test', emailVerified: true };
    fake.tampering = { claims: { email: undefined, email_verified: undefined } };
    const { res } = await oauthSignIn(t, 'oidc');
    expect((await sessionUser(t, res.headers)).id).toBe(alice.userId);
    expect(fake.log.some((entry) => entry.path === '/oidc/userinfo')).toBe(true);
  });

  test('sign-up (development runtime, enabled): a new user with their own organization', async () => {
    const { t, fake } = setup({ runtime: 'development', isSignupEnabled: true });
    fake.nextUser = { subject: 'new-1', email: 'newcomer@example.test', emailVerified: true, name: 'New Comer' };
    const { res } = await oauthSignIn(t, 'oidc', { returnTo: '/welcome' });
    expect(res.headers.get('location')).toBe('/welcome');
    const created = t.db.select().from(user).where(eq(user.email, 'newcomer@example.test')).get()!;
    expect(created).toMatchObject({ displayName: 'New Comer', passwordHash: null, isSuperadmin: false });
    expect((await sessionUser(t, res.headers)).id).toBe(created.id);
    expect(t.db.select().from(membership).where(eq(membership.userId, created.id)).get()?.role).toBe('owner');
    expect(t.db.select().from(oauthIdentity).where(eq(oauthIdentity.userId, created.id)).get()?.subject).toBe('new-1');
  });

  test('no sign-up unless enabled: an unknown address is refused and nothing is created', async () => {
    for (const overrides of [{}, { runtime: 'development' as const }, { runtime: 'self-hosted' as const, isSignupEnabled: true }]) {
      const { t, fake } = setup(overrides);
      await createPasswordUser(t, { email: 'someone@example.test' }); // installed
      fake.nextUser = { subject: 'stranger', email: 'stranger@example.test', emailVerified: true };
      const users = t.db.select().from(user).all().length;
      const { res } = await oauthSignIn(t, 'oidc');
      expect(errorOf(res)).toBe('signup_disabled');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(t.db.select().from(user).all()).toHaveLength(users);
      expect(t.db.select().from(oauthIdentity).all()).toHaveLength(0);
    }
  });
});

describe('GitHub sign-in', () => {
  test('links by a verified address (primary first), numeric id as subject', async () => {
    const { t, fake } = setup();
    const bob = await createPasswordUser(t, { email: 'bob@work.example' });
    fake.nextUser = {
      subject: '583231',
      login: 'bob',
      githubEmails: [
        { email: 'bob@home.example', verified: true, primary: false },
        { email: 'bob@work.example', verified: true, primary: true },
      ],
    };
    const { start, res } = await oauthSignIn(t, 'github', { returnTo: '/servers' });
    const authorize = new URL(start.location);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.githubBaseUrl}/login/oauth/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ scope: 'read:user user:email', code_challenge_method: 'S256' });
    expect(res.headers.get('location')).toBe('/servers');
    expect((await sessionUser(t, res.headers)).id).toBe(bob.userId);
    expect(t.db.select().from(oauthIdentity).get()).toMatchObject({ provider: 'github', subject: '583231', email: 'bob@work.example' });
    const exchange = fake.log.find((entry) => entry.path === '/github/login/oauth/access_token')!;
    expect(exchange.params.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('sign-up takes the GitHub name, else the login', async () => {
    const { t, fake } = setup({ runtime: 'development', isSignupEnabled: true });
    fake.nextUser = { subject: '42', login: 'octocat', email: 'octo@example.test', emailVerified: true };
    const { res } = await oauthSignIn(t, 'github');
    expect(res.headers.get('location')).toBe('/');
    expect(t.db.select().from(user).where(eq(user.email, 'octo@example.test')).get()?.displayName).toBe('octocat');
  });
});

describe('second factor after a provider sign-in', () => {
  test('a TOTP user gets a pn2fa challenge in the fragment, no session; TOTP completes it', async () => {
    const { t, fake } = setup();
    const alice = await createPasswordUser(t, { email: 'alice@example.test' });
    const { headers } = await signIn(t, alice.email, alice.password);
    const { secret } = (await t.request('POST', '/api/client/v1/auth/totp/enrol', undefined, headers!)).json;
    await t.request('POST', '/api/client/v1/auth/totp/confirm', { code: totpCode(secret, t.clock.now()) }, headers!);
    t.clock.advance(30_000);

    fake.nextUser = { subject: 'oidc-alice', email: 'alice@example.test', emailVerified: true };
    const { res } = await oauthSignIn(t, 'oidc', { returnTo: '/deployments' });
    expectRedirectOnly(res);
    expect(res.headers.get('set-cookie')).toBeNull();
    const location = res.headers.get('location')!;
    expect(location).toStartWith('/sign-in#');
    expect(location).not.toContain('?');
    const fragment = new URLSearchParams(location.slice('/sign-in#'.length));
    expect(fragment.get('challenge')).toStartWith('pn2fa.v1.');
    expect(fragment.get('methods')).toBe('totp,recovery');
    expect(fragment.get('returnTo')).toBe('/deployments');

    const done = await t.request('POST', '/api/client/v1/auth/sign-in/totp', { challenge: fragment.get('challenge'), code: totpCode(secret, t.clock.now()) }, originOf(t));
    expect(done.status).toBe(200);
    expect(done.json.user.id).toBe(alice.userId);
  });

  test('a passkey user: the passkey completes the pending sign-in', async () => {
    const { t, fake } = setup();
    const alice = await userWithPasskey(t);
    fake.nextUser = { subject: 'oidc-alice', email: alice.email, emailVerified: true };
    const { res } = await oauthSignIn(t, 'oidc');
    const fragment = new URLSearchParams(res.headers.get('location')!.split('#')[1]);
    expect(fragment.get('methods')).toBe('passkey');
    const twoFactorChallenge = fragment.get('challenge')!;
    const start = await t.request('POST', '/api/client/v1/auth/passkeys/sign-in/options', { twoFactorChallenge }, originOf(t));
    const response = alice.authenticator.authenticate(start.json.options);
    const done = await t.request('POST', '/api/client/v1/auth/passkeys/sign-in/verify', { challenge: start.json.challenge, response, twoFactorChallenge }, originOf(t));
    expect(done.status).toBe(200);
    expect(done.json.user.id).toBe(alice.userId);
  });
});

describe('OpenAPI', () => {
  test('start and callback are documented as redirects, providers as JSON', async () => {
    const t = createTestApp();
    const doc = (await t.request('GET', '/api/openapi.json')).json;
    for (const path of ['/api/client/v1/auth/oauth/{provider}/start', '/api/client/v1/auth/oauth/{provider}/callback']) {
      const operation = doc.paths[path].get;
      expect(Object.keys(operation.responses)).toEqual(['302']);
      expect(operation.responses['302'].content).toBeUndefined();
      expect(operation.responses['302'].headers.location).toBeDefined();
    }
    expect(Object.keys(doc.paths['/api/client/v1/auth/oauth/providers'].get.responses)).toEqual(['200', '503']);
  });
});

describe('the callback URL a provider is given', () => {
  test('follows PANEL_PUBLIC_URL', async () => {
    const { t } = setup({ publicUrl: 'https://panel.example.test' });
    await createPasswordUser(t);
    const { location, res } = await startFlow(t, 'github');
    expect(new URL(location).searchParams.get('redirect_uri')).toBe('https://panel.example.test/api/client/v1/auth/oauth/github/callback');
    expect(res.headers.get('set-cookie')).toMatch(/^__Host-panel_oauth=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600; Secure$/);
    // Completing in the same browser works with the __Host- cookie.
    const { fake } = { fake: providers.at(-1)! };
    fake.nextUser = { subject: '7', email: 'nobody@example.test', emailVerified: true };
    const back = await approve(location);
    expect(errorOf(await callback(t, back, setCookieOf(res.headers)))).toBe('signup_disabled');
  });
});

function setCookieOf(headers: Headers): string {
  return headers.getSetCookie()[0]!.split(';')[0]!;
}
