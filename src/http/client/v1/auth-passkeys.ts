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
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
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
import { requestMeta } from '../../plugins/rate-limit.ts';
import { assertCookieWriteOrigin, installGate, setSessionCookie } from '../../plugins/session.ts';
import { iso, isoOrNull } from '../../present.ts';
import { errorResponses, IdParams, listEnvelope, NoContent } from '../../schemas.ts';
import { ChallengeEnvelope, presentUser, RECENT_SIGN_IN_DOC, SignedInSchema } from './auth-schemas.ts';

const Base64Url = (max: number) =>
  v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`), v.regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url'));

const PasskeyName = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));

/** The browser's PublicKeyCredential of navigator.credentials.create(), as JSON (RegistrationResponseJSON). */
const RegistrationResponse = v.looseObject({
  id: Base64Url(1400),
  rawId: Base64Url(1400),
  type: v.literal('public-key'),
  response: v.looseObject({
    clientDataJSON: Base64Url(16_384),
    attestationObject: Base64Url(131_072),
    transports: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(32))), v.maxLength(16))),
  }),
  clientExtensionResults: v.optional(v.record(v.string(), v.unknown()), {}),
  authenticatorAttachment: v.optional(v.string()),
});

/** The browser's PublicKeyCredential of navigator.credentials.get(), as JSON (AuthenticationResponseJSON). */
const AuthenticationResponse = v.looseObject({
  id: Base64Url(1400),
  rawId: Base64Url(1400),
  type: v.literal('public-key'),
  response: v.looseObject({
    clientDataJSON: Base64Url(16_384),
    authenticatorData: Base64Url(16_384),
    signature: Base64Url(2048),
    userHandle: v.optional(Base64Url(256)),
  }),
  clientExtensionResults: v.optional(v.record(v.string(), v.unknown()), {}),
  authenticatorAttachment: v.optional(v.string()),
});

const CeremonySchema = v.object({
  /** PublicKeyCredentialCreationOptionsJSON / PublicKeyCredentialRequestOptionsJSON for the browser. */
  options: v.looseObject({ challenge: v.string() }),
  /** A `pnwebauthn` envelope: send it back with the response. Single use, five minutes. */
  challenge: v.string(),
  expiresAt: v.string(),
});

const PasskeySchema = v.object({
  id: v.string(),
  name: v.string(),
  deviceType: v.nullable(v.string()),
  isBackedUp: v.boolean(),
  transports: v.array(v.string()),
  lastUsedAt: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});

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
        body: v.optional(v.object({ twoFactorChallenge: v.optional(ChallengeEnvelope) })),
        response: { 200: CeremonySchema, ...errorResponses('unauthenticated', 'no_passkey', 'validation_failed', 'install_required') },
        detail: {
          summary: 'Start a passkey sign-in: without a body, a discoverable passkey signs in alone; with twoFactorChallenge (pn2fa), a passkey completes that pending sign-in',
        },
      },
    )
    .post(
      '/sign-in/verify',
      async ({ body, request, server, set }) => {
        assertCookieWriteOrigin(deps, request);
        const result = await signInWithPasskey(
          ctx,
          {
            challenge: body.challenge,
            response: body.response as unknown as AuthenticationResponseJSON,
            ...(body.twoFactorChallenge === undefined ? {} : { twoFactorChallenge: body.twoFactorChallenge }),
          },
          requestMeta(server, request),
        );
        setSessionCookie(set, deps, result.token);
        return { status: 'signed_in' as const, user: presentUser(result.user) };
      },
      {
        body: v.object({ challenge: ChallengeEnvelope, response: AuthenticationResponse, twoFactorChallenge: v.optional(ChallengeEnvelope) }),
        response: { 200: SignedInSchema, ...errorResponses('unauthenticated', 'forbidden', 'validation_failed', 'rate_limited', 'install_required') },
        detail: { summary: 'Finish a passkey sign-in: verifies the assertion, checks the signature counter, and signs in (Set-Cookie)' },
      },
    );

const passkeyAccountRoutes = (deps: AppDeps, ctx: PasskeyContext) =>
  new Elysia({ prefix: '/auth/passkeys', detail: { tags: ['auth'] } })
    .use(clientGuard(deps))
    .get('/', ({ actor }) => ({ data: listPasskeys(deps.db, actor).map(presentPasskey), nextCursor: null }), {
      response: { 200: listEnvelope(PasskeySchema), ...errorResponses('unauthenticated', 'forbidden', 'install_required') },
      detail: { summary: "The signed-in user's passkeys" },
    })
    .post('/register/options', async ({ actor }) => presentCeremony(await beginPasskeyRegistration(ctx, actor)), {
      response: { 200: CeremonySchema, ...errorResponses('unauthenticated', 'forbidden', 'passkey_limit_reached', 'install_required') },
      detail: { summary: 'Start registering a passkey: creation options and a pnwebauthn envelope', description: RECENT_SIGN_IN_DOC },
    })
    .post(
      '/register/verify',
      async ({ actor, body, request, server, set }) => {
        const row = await completePasskeyRegistration(
          ctx,
          actor,
          {
            challenge: body.challenge,
            response: body.response as unknown as RegistrationResponseJSON,
            ...(body.name === undefined ? {} : { name: body.name }),
          },
          requestMeta(server, request),
        );
        set.status = 201;
        return presentPasskey(row);
      },
      {
        body: v.object({ challenge: ChallengeEnvelope, response: RegistrationResponse, name: v.optional(PasskeyName) }),
        response: { 201: PasskeySchema, ...errorResponses('unauthenticated', 'forbidden', 'passkey_already_registered', 'passkey_limit_reached', 'validation_failed', 'rate_limited', 'install_required') },
        detail: { summary: 'Finish registering a passkey: verifies the attestation and stores the public key', description: RECENT_SIGN_IN_DOC },
      },
    )
    .patch('/:id', ({ actor, body, params }) => presentPasskey(renamePasskey(deps.db, actor, params.id, body.name)), {
      params: IdParams,
      body: v.object({ name: PasskeyName }),
      response: { 200: PasskeySchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed', 'install_required') },
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
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed', 'install_required') },
        detail: { summary: 'Delete one of your passkeys', description: RECENT_SIGN_IN_DOC },
      },
    );

export const authPasskeyRoutes = (deps: AppDeps) => {
  const ctx = passkeyContext(deps);
  return new Elysia().use(passkeySignInRoutes(deps, ctx)).use(passkeyAccountRoutes(deps, ctx));
};
