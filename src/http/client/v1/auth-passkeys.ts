/**
 * Passkeys (WebAuthn). Ceremonies answer the browser's options plus a `pnwebauthn` envelope to
 * send back with the authenticator's response.
 *
 * Signed in (client guard; API tokens get 403; * needs a sign-in within 15 minutes, else 403
 * reauthentication_required):
 *   POST   /auth/passkeys/register/options * -> {options, challenge, expiresAt}
 *   POST   /auth/passkeys/register/verify  * {challenge, response, name?} -> the new passkey
 *   GET    /auth/passkeys                    the user's passkeys
 *   PATCH  /auth/passkeys/:id                {name}
 *   DELETE /auth/passkeys/:id              *
 *
 * Signing in (no session needed; 503 before the install):
 *   POST   /auth/passkeys/sign-in/options    {} (discoverable passkey sign-in) or {twoFactorChallenge}
 *   POST   /auth/passkeys/sign-in/verify     {challenge, response, twoFactorChallenge?} -> signed in (Set-Cookie)
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { type AuthenticationResponseJSON, type RegistrationResponseJSON, relyingPartyOf } from '../../../auth/passkey.ts';
import type { Passkey } from '../../../db/schema/index.ts';
import {
  beginPasskeyRegistration,
  beginPasskeySignIn,
  completePasskeyRegistration,
  deletePasskey,
  listPasskeys,
  type PasskeyContext,
  renamePasskey,
  signInWithPasskey,
} from '../../../domain/identity/passkeys.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { requestMeta } from '../../plugins/client-address.ts';
import { assertCookieWriteOrigin, installGate, setSessionCookie } from '../../plugins/session.ts';
import { iso, isoOrNull } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { presentUser, RECENT_SIGN_IN_DOC, RECENT_SIGN_IN_ERRORS } from './auth-schemas.ts';
import { Ceremony, Passkey as PasskeyResponse, PasskeyRegistration, PasskeyRename, PasskeySignIn, PasskeySignInStart, SignedIn } from '../../../contract/identity.ts';

/** Public material only, and not even that: the credential id and key never leave. */
const presentPasskey = (row: Passkey) => ({
  id: row.id,
  name: row.name,
  deviceType: row.deviceType,
  isBackedUp: row.isBackedUp,
  transports: row.transports ?? [],
  lastUsedAt: isoOrNull(row.lastUsedAt),
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});

const presentCeremony = (start: { options: { challenge: string }; challenge: string; expiresAt: Date }) => ({
  options: start.options,
  challenge: start.challenge,
  expiresAt: iso(start.expiresAt),
});

function passkeyContext(deps: AppDeps): PasskeyContext {
  return { db: deps.db, clock: deps.clock, keyring: deps.keyring, rp: relyingPartyOf(deps.config.publicUrl) };
}

const passkeySignInRoutes = (deps: AppDeps, ctx: PasskeyContext) =>
  new Elysia({ prefix: '/auth/passkeys', detail: { tags: ['auth'] } })
    .use(installGate(deps))
    .post(
      '/sign-in/options',
      async ({ body }) => presentCeremony(await beginPasskeySignIn(ctx, { ...(body?.twoFactorChallenge ? { twoFactorChallenge: body.twoFactorChallenge } : {}) })),
      {
        body: PasskeySignInStart,
        response: { 200: Ceremony, ...errorResponses('unauthenticated', 'invalid_challenge', 'no_passkey', 'validation_failed', 'install_required') },
        detail: {
          summary: 'Start a passkey sign-in: without a body, a discoverable passkey signs in alone; with twoFactorChallenge (pn2fa), a passkey completes that pending sign-in',
        },
      },
    )
    .post(
      '/sign-in/verify',
      async ({ body, request, set }) => {
        assertCookieWriteOrigin(deps, request);
        const result = await signInWithPasskey(
          ctx,
          {
            challenge: body.challenge,
            response: body.response as unknown as AuthenticationResponseJSON,
            ...(body.twoFactorChallenge === undefined ? {} : { twoFactorChallenge: body.twoFactorChallenge }),
          },
          requestMeta(request),
        );
        setSessionCookie(set, deps, result.token);
        return { status: 'signed_in' as const, user: presentUser(result.user) };
      },
      {
        body: PasskeySignIn,
        response: { 200: SignedIn, ...errorResponses('unauthenticated', 'invalid_challenge', 'passkey_invalid', 'forbidden', 'validation_failed', 'rate_limited', 'install_required') },
        detail: { summary: 'Finish a passkey sign-in: verifies the assertion, checks the signature counter, and signs in (Set-Cookie)' },
      },
    );

const passkeyAccountRoutes = (deps: AppDeps, ctx: PasskeyContext) =>
  new Elysia({ prefix: '/auth/passkeys', detail: { tags: ['auth'] } })
    .use(clientGuard(deps))
    .get('/', ({ actor }) => ({ data: listPasskeys(deps.db, actor).map(presentPasskey), nextCursor: null }), {
      response: { 200: listEnvelope(PasskeyResponse), ...errorResponses('unauthenticated', 'forbidden', 'session_required', 'install_required') },
      role: 'self',
      detail: { summary: "The signed-in user's passkeys" },
    })
    .post('/register/options', async ({ actor }) => presentCeremony(await beginPasskeyRegistration(ctx, actor)), {
      response: { 200: Ceremony, ...errorResponses('unauthenticated', 'forbidden', ...RECENT_SIGN_IN_ERRORS, 'passkey_limit_reached', 'install_required') },
      role: 'self',
      detail: { summary: 'Start registering a passkey: creation options and a pnwebauthn envelope', description: RECENT_SIGN_IN_DOC },
    })
    .post(
      '/register/verify',
      async ({ actor, body, request, set }) => {
        const row = await completePasskeyRegistration(
          ctx,
          actor,
          {
            challenge: body.challenge,
            response: body.response as unknown as RegistrationResponseJSON,
            ...(body.name === undefined ? {} : { name: body.name }),
          },
          requestMeta(request),
        );
        set.status = 201;
        return presentPasskey(row);
      },
      {
        body: PasskeyRegistration,
        response: {
          201: PasskeyResponse,
          ...errorResponses('unauthenticated', 'forbidden', ...RECENT_SIGN_IN_ERRORS, 'passkey_already_registered', 'passkey_limit_reached', 'invalid_registration_challenge', 'registration_not_verified', 'validation_failed', 'rate_limited', 'install_required'),
        },
        role: 'self',
        detail: { summary: 'Finish registering a passkey: verifies the attestation and stores the public key', description: RECENT_SIGN_IN_DOC },
      },
    )
    .patch('/:id', ({ actor, body, params }) => presentPasskey(renamePasskey(deps.db, actor, params.id, body.name)), {
      params: IdParams,
      body: PasskeyRename,
      response: { 200: PasskeyResponse, ...errorResponses('unauthenticated', 'forbidden', 'session_required', 'not_found', 'validation_failed', 'install_required') },
      role: 'self',
      detail: { summary: 'Rename one of your passkeys' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deletePasskey(deps.db, deps.clock, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', ...RECENT_SIGN_IN_ERRORS, 'not_found', 'validation_failed', 'install_required') },
        role: 'self',
        detail: { summary: 'Delete one of your passkeys', description: RECENT_SIGN_IN_DOC },
      },
    );

export const authPasskeyRoutes = (deps: AppDeps) => {
  const ctx = passkeyContext(deps);
  return new Elysia().use(passkeySignInRoutes(deps, ctx)).use(passkeyAccountRoutes(deps, ctx));
};
