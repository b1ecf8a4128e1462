/**
 * Sign-in with external identity providers (configured by environment: GitHub, OpenID Connect).
 *
 *   GET /auth/oauth/providers                  the configured providers
 *   GET /auth/oauth/:provider/start?returnTo=  302 to the provider (sets the browser binding cookie)
 *   GET /auth/oauth/:provider/callback         302 only, never JSON:
 *       signed in                  -> <returnTo>                                 (Set-Cookie: session)
 *       second factor needed       -> /sign-in#challenge=<pn2fa>&methods=totp,passkey&returnTo=<path>
 *       anything refused or failed -> /sign-in?error=<code>
 *
 * The pending pn2fa challenge travels in the URL fragment, not the query: fragments are never
 * sent to a server, so the challenge stays out of access logs, proxies and Referer headers. The
 * sign-in page reads it and finishes with /auth/sign-in/totp, /recovery or a passkey.
 *
 * The binding cookie (`panel_oauth`, `__Host-panel_oauth` over https) holds 256 random bits; the
 * state is sealed to its hash, so a callback URL cannot be completed in another browser (login
 * CSRF, a leaked callback URL). SameSite=Lax: the provider's redirect back is a top-level GET.
 */
import { randomBytes } from 'node:crypto';
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { configuredProviders } from '../../../auth/oauth/index.ts';
import { OAuthProviders } from '../../../contract/identity.ts';
import { installRequired, isInstalled } from '../../../domain/identity/installed.ts';
import { completeOAuth, listProviders, type OAuthContext, startOAuth } from '../../../domain/identity/oauth.ts';
import { DomainError } from '../../../lib/errors.ts';
import { readCookie } from '../../plugins/guard.ts';
import { requestMeta } from '../../plugins/client-address.ts';
import { requestIdOf } from '../../plugins/request.ts';
import { installGate, setSessionCookie } from '../../plugins/session.ts';
import { errorResponses } from '../../schemas.ts';

export const OAUTH_PREFIX = '/api/client/v1/auth/oauth';
const BINDING_COOKIE = 'panel_oauth';
const BINDING_MAX_AGE_SECONDS = 10 * 60;
const BINDING_VALUE = /^[A-Za-z0-9_-]{43}$/;
const SIGN_IN_PAGE = '/sign-in';

const bindingCookieName = (publicUrl: string) => (publicUrl.startsWith('https:') ? `__Host-${BINDING_COOKIE}` : BINDING_COOKIE);

function bindingCookieHeader(publicUrl: string, value: string): string {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${bindingCookieName(publicUrl)}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${BINDING_MAX_AGE_SECONDS}${secure}`;
}

function bindingOf(publicUrl: string, request: Request): string | null {
  const value = readCookie(request.headers.get('cookie'), bindingCookieName(publicUrl));
  return value !== null && BINDING_VALUE.test(value) ? value : null;
}

export const signInErrorLocation = (code: string) => `${SIGN_IN_PAGE}?error=${encodeURIComponent(code)}`;

function secondFactorLocation(challenge: string, methods: string[], returnTo: string): string {
  const fragment = new URLSearchParams({ challenge, methods: methods.join(','), returnTo });
  return `${SIGN_IN_PAGE}#${fragment.toString()}`;
}

const redirectDoc = (description: string) => ({
  302: {
    description,
    headers: { location: { description: 'Where the browser goes next', schema: { type: 'string' as const } } },
  },
});

export const authOAuthRoutes = (deps: AppDeps) => {
  const { config } = deps;
  const ctx: OAuthContext = {
    db: deps.db,
    clock: deps.clock,
    keyring: deps.keyring,
    providers: configuredProviders(config.oauth, { clock: deps.clock }),
    publicUrl: config.publicUrl,
    signUpEnabled: config.runtime === 'development' && config.isSignupEnabled,
    callbackUrl: (provider) => `${config.publicUrl}${OAUTH_PREFIX}/${provider}/callback`,
  };
  const assertInstalled = () => {
    if (config.runtime === 'self-hosted' && !isInstalled(deps.db)) throw installRequired();
  };

  type Redirect = (url: string, status?: 302) => Response;
  type RouteSet = { headers: Record<string, unknown> };

  /** Browser navigations answer a redirect whatever happens; unexpected failures are logged, not shown. */
  async function redirectAlways(request: Request, set: RouteSet, redirect: Redirect, work: () => Promise<string>): Promise<Response> {
    set.headers['cache-control'] = 'no-store';
    set.headers['referrer-policy'] = 'no-referrer';
    try {
      return redirect(await work(), 302);
    } catch (error) {
      if (!(error instanceof DomainError)) {
        deps.logger.error('oauth sign-in failed', { requestId: requestIdOf(request), error: error instanceof Error ? error.message : String(error) });
      }
      delete set.headers['set-cookie'];
      return redirect(signInErrorLocation(error instanceof DomainError ? error.code : 'server_error'), 302);
    }
  }

  const providerList = new Elysia({ prefix: '/auth/oauth', detail: { tags: ['auth'] } })
    .use(installGate(deps))
    .get('/providers', () => ({ data: listProviders(ctx) }), {
      response: { 200: OAuthProviders, ...errorResponses('install_required') },
      detail: { summary: 'The external identity providers this instance is configured for' },
    });

  const flow = new Elysia({ prefix: '/auth/oauth', detail: { tags: ['auth'] } })
    .get(
      '/:provider/start',
      ({ params, request, set, redirect }) =>
        redirectAlways(request, set, redirect, async () => {
          assertInstalled();
          const binding = bindingOf(config.publicUrl, request) ?? randomBytes(32).toString('base64url');
          const location = await startOAuth(ctx, params.provider, { returnTo: new URL(request.url).searchParams.get('returnTo'), binding });
          set.headers['set-cookie'] = bindingCookieHeader(config.publicUrl, binding);
          return location;
        }),
      {
        detail: {
          summary: 'Start signing in with a provider (github, oidc): redirects to it. Query: returnTo, a same-origin path (anything else becomes /)',
          responses: redirectDoc('To the provider’s authorization page; on failure to /sign-in?error=<code>'),
        },
      },
    )
    .get(
      '/:provider/callback',
      ({ params, request, set, redirect }) =>
        redirectAlways(request, set, redirect, async () => {
          assertInstalled();
          const query = new URL(request.url).searchParams;
          const optional = (name: string) => query.get(name) ?? undefined;
          const outcome = await completeOAuth(
            ctx,
            params.provider,
            {
              code: optional('code'),
              state: optional('state'),
              error: optional('error'),
              issuer: optional('iss'),
              binding: bindingOf(config.publicUrl, request),
            },
            requestMeta(request),
          );
          if (outcome.kind === 'second_factor') return secondFactorLocation(outcome.challenge, outcome.methods, outcome.returnTo);
          setSessionCookie(set, deps, outcome.session.token);
          return outcome.returnTo;
        }),
      {
        detail: {
          summary:
            'Where the provider sends the browser back (query: code, state, error, iss). Only ever redirects: to returnTo signed in, to /sign-in#challenge=… when a second factor is needed, or to /sign-in?error=<code>',
          responses: redirectDoc(
            'Signed in: to returnTo. Second factor: /sign-in#challenge=<pn2fa>&methods=…&returnTo=…. Refused: /sign-in?error=<code> with code one of invalid_state, access_denied, invalid_request, provider_unavailable, provider_error, invalid_id_token, email_not_verified, signup_disabled, account_conflict, install_required, server_error',
          ),
        },
      },
    );

  return new Elysia().use(providerList).use(flow);
};
