/**
 * Signing in and out (not behind the client guard: these routes create sessions). Every route
 * answers 503 before the install; every cookie write checks Origin against PANEL_PUBLIC_URL.
 *
 *   POST /auth/sign-in            {email, password} -> signed in (Set-Cookie) or a pn2fa challenge
 *   POST /auth/sign-in/totp       {challenge, code}
 *   POST /auth/sign-in/recovery   {challenge, code}
 *   POST /auth/sign-out
 *   POST /auth/sign-up            development runtime with PANEL_IS_SIGNUP_ENABLED only
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { signUp } from '../../../domain/identity/account.ts';
import { resolveActor } from '../../../domain/identity/resolve.ts';
import { revokeSession } from '../../../domain/identity/sessions.ts';
import { type SessionStarted, signInWithPassword, signInWithSecondFactor, type SignInResult } from '../../../domain/identity/sign-in.ts';
import { requestMeta } from '../../plugins/client-address.ts';
import { sessionTokenOf } from '../../plugins/guard.ts';
import { assertCookieWriteOrigin, clearSessionCookie, installGate, setSessionCookie } from '../../plugins/session.ts';
import { errorResponses } from '../../schemas.ts';
import { presentUser } from './auth-schemas.ts';
import { NoContent } from '../../../contract/common.ts';
import { SecondStepRequest, SignedIn, SignedUp, SignInRequest, SignInResult as SignInAnswer, SignUpRequest } from '../../../contract/identity.ts';

type HeaderSet = { headers: Record<string, unknown> };

function signedIn(deps: AppDeps, set: HeaderSet, result: SessionStarted) {
  setSessionCookie(set, deps, result.token);
  return { status: 'signed_in' as const, user: presentUser(result.user) };
}

function answer(deps: AppDeps, set: HeaderSet, result: SignInResult) {
  if (result.kind === 'session') return signedIn(deps, set, result);
  return { status: 'two_factor_required' as const, challenge: result.challenge, expiresAt: result.expiresAt.toISOString(), methods: result.methods };
}

function signUpRoutes(deps: AppDeps) {
  return new Elysia().post(
    '/sign-up',
    async ({ body, request, set }) => {
      assertCookieWriteOrigin(deps, request);
      const created = await signUp(deps, body, requestMeta(request));
      setSessionCookie(set, deps, created.token);
      set.status = 201;
      return { user: presentUser(created.user), organizationId: created.organization.id };
    },
    {
      body: SignUpRequest,
      response: { 201: SignedUp, ...errorResponses('forbidden', 'email_in_use', 'validation_failed', 'install_required') },
      detail: { summary: 'Sign up: a new user and their own organization (development runtime, when enabled)' },
    },
  );
}

export const authRoutes = (deps: AppDeps) => {
  const signUpEnabled = deps.config.runtime === 'development' && deps.config.isSignupEnabled;
  return new Elysia({ prefix: '/auth', detail: { tags: ['auth'] } })
    .use(installGate(deps))
    .post(
      '/sign-in',
      async ({ body, request, set }) => {
        assertCookieWriteOrigin(deps, request);
        return answer(deps, set, await signInWithPassword(deps, body, requestMeta(request)));
      },
      {
        body: SignInRequest,
        response: { 200: SignInAnswer, ...errorResponses('unauthenticated', 'invalid_credentials', 'forbidden', 'validation_failed', 'rate_limited', 'install_required') },
        detail: { summary: 'Sign in with e-mail and password; answers a pn2fa challenge when a second factor is enabled' },
      },
    )
    .post(
      '/sign-in/totp',
      ({ body, request, set }) => {
        assertCookieWriteOrigin(deps, request);
        return signedIn(deps, set, signInWithSecondFactor(deps, { ...body, method: 'totp' }, requestMeta(request)));
      },
      {
        body: SecondStepRequest,
        response: { 200: SignedIn, ...errorResponses('unauthenticated', 'invalid_challenge', 'invalid_code', 'forbidden', 'validation_failed', 'rate_limited', 'install_required') },
        detail: { summary: 'Complete a pending sign-in with a TOTP code' },
      },
    )
    .post(
      '/sign-in/recovery',
      ({ body, request, set }) => {
        assertCookieWriteOrigin(deps, request);
        return signedIn(deps, set, signInWithSecondFactor(deps, { ...body, method: 'recovery' }, requestMeta(request)));
      },
      {
        body: SecondStepRequest,
        response: { 200: SignedIn, ...errorResponses('unauthenticated', 'invalid_challenge', 'invalid_code', 'forbidden', 'validation_failed', 'rate_limited', 'install_required') },
        detail: { summary: 'Complete a pending sign-in with a single-use recovery code' },
      },
    )
    .post(
      '/sign-out',
      ({ request, set }) => {
        assertCookieWriteOrigin(deps, request);
        const token = sessionTokenOf(deps, request);
        const actor = token ? resolveActor(deps.db, deps.clock, { sessionToken: token }) : null;
        if (actor) revokeSession(deps.db, actor.credentialId);
        clearSessionCookie(set, deps);
        set.status = 204;
      },
      {
        response: { 204: NoContent, ...errorResponses('forbidden', 'install_required') },
        detail: { summary: 'Sign out: revokes the session server side and clears the cookie' },
      },
    )
    .use(signUpEnabled ? signUpRoutes(deps) : new Elysia());
};
