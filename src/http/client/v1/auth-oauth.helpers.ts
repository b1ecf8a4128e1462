/** OAuth test helpers: an app wired to a fake provider, and the browser's side of the flow. */
import { expect } from 'bun:test';
import type { Config } from '../../../config.ts';
import { FakeOAuthProvider, type FakeProviderOptions } from '../../../../test/fake-oauth-provider.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';

export const OAUTH = '/api/client/v1/auth/oauth';

/** A test app with both providers pointing at one fake provider (stop it when done). */
export function oauthTestApp(overrides: Partial<Config> = {}, providerOptions: Omit<FakeProviderOptions, 'now'> = {}) {
  let app: TestApp | null = null;
  const fake = new FakeOAuthProvider({ ...providerOptions, now: () => app!.clock.now() });
  app = createTestApp({
    oauth: {
      oidc: { issuer: fake.issuer, clientId: fake.clientId, clientSecret: fake.clientSecret, name: 'Fake IdP' },
      github: { clientId: fake.clientId, clientSecret: fake.clientSecret, baseUrl: fake.githubBaseUrl, apiUrl: fake.githubApiUrl },
    },
    ...overrides,
  });
  return { t: app, fake };
}

/** `name=value` of a Set-Cookie header by cookie name. */
export function setCookiePair(headers: Headers, name: string): string | null {
  const header = headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  return header ? header.split(';')[0]! : null;
}

export type Provider = 'oidc' | 'github';

/** GET start in the browser holding `cookie` (none: a fresh browser); answers the provider URL and the browser's binding cookie. */
export async function startFlow(t: TestApp, provider: Provider, options: { returnTo?: string; cookie?: string } = {}) {
  const query = options.returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(options.returnTo)}`;
  const res = await t.request('GET', `${OAUTH}/${provider}/start${query}`, undefined, options.cookie ? { cookie: options.cookie } : {});
  expect(res.status).toBe(302);
  const cookie = setCookiePair(res.headers, 'panel_oauth') ?? setCookiePair(res.headers, '__Host-panel_oauth') ?? options.cookie ?? null;
  return { res, location: res.headers.get('location')!, cookie };
}

/** The user approves at the fake provider; answers the callback URL it redirects back to. */
export async function approve(location: string): Promise<URL> {
  const res = await fetch(location, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

/** GET the callback (path and query of `url`) in the browser holding `cookie`. */
export function callback(t: TestApp, url: URL, cookie: string | null) {
  return t.request('GET', `${url.pathname}${url.search}`, undefined, cookie ? { cookie } : {});
}

/** Start, approve, callback: one complete sign-in in one fresh browser. */
export async function oauthSignIn(t: TestApp, provider: Provider, options: { returnTo?: string } = {}) {
  const start = await startFlow(t, provider, options);
  const callbackUrl = await approve(start.location);
  const res = await callback(t, callbackUrl, start.cookie);
  return { start, callbackUrl, res, cookie: start.cookie };
}

/** A callback answer is a redirect and nothing else: no JSON, no body. */
export function expectRedirectOnly(res: { status: number; headers: Headers; text: string }) {
  expect(res.status).toBe(302);
  expect(res.headers.get('content-type') ?? '').not.toContain('json');
  expect(res.text).toBe('');
  expect(res.headers.get('location')).toBeString();
}

/** Where a refused callback sent the browser: the error code of /sign-in?error=<code>. */
export function errorOf(res: { status: number; headers: Headers; text: string }): string | null {
  expectRedirectOnly(res);
  const location = new URL(res.headers.get('location')!, 'http://panel.invalid');
  if (location.pathname !== '/sign-in') return null;
  return location.searchParams.get('error');
}
