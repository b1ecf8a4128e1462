/**
 * Passkeys: registration by a signed-in user, sign-in with a discoverable passkey alone, and a
 * passkey as the second factor of a pending `pn2fa` sign-in; plus list, rename and delete.
 *
 * Every ceremony carries its WebAuthn challenge in a `pnwebauthn` envelope: sealed, expiring
 * after five minutes, single use (consumed before the response is even verified, so two
 * requests with one envelope cannot both pass), and bound to
 *   - its subject: the user id (registration, second factor) or `anonymous` (discoverable sign-in),
 *   - its ceremony: `registration`, `sign-in` or `second-factor`,
 *   - for a second factor, the id of the very `pn2fa` challenge it was issued for.
 * Failed attempts count against the `passkey` limits per account and per address.
 */
import { and, asc, count, eq } from 'drizzle-orm';
import {
  type AuthenticationResponseJSON,
  authenticationOptions,
  checkAuthentication,
  checkRegistration,
  type RegistrationResponseJSON,
  type RelyingParty,
  registrationOptions,
  type UserVerification,
  userHandleOf,
} from '../../auth/passkey.ts';
import { CHALLENGE_LIFETIME_MS, type Challenge, openChallenge, sealChallenge } from '../../crypto/index.ts';
import type { Db } from '../../db/client.ts';
import { type Passkey, passkey } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, DomainError, notFound } from '../../lib/errors.ts';
import type { Actor } from '../actor.ts';
import { requireRecentSignIn, requireSessionActor } from './account.ts';
import { consumedChallengeStore } from './challenges.ts';
import type { IdentityContext, RequestMeta } from './context.ts';
import { beginAttempt } from './rate-limit.ts';
import { peekSecondFactorChallenge, redeemSecondFactorChallenge, type SessionStarted, startSession } from './sign-in.ts';
import { findUser } from './users.ts';

export interface PasskeyContext extends IdentityContext {
  rp: RelyingParty;
}

type Ceremony = 'registration' | 'sign-in' | 'second-factor';

/** The subject of a discoverable sign-in's envelope: nobody is known yet. */
export const ANONYMOUS_SUBJECT = 'anonymous';
/** More than anyone needs; keeps the allow list of a second-factor prompt small. */
export const MAX_PASSKEYS_PER_USER = 20;
const DEFAULT_PASSKEY_NAME = 'Passkey';

const USER_VERIFICATION: Readonly<Record<Exclude<Ceremony, 'registration'>, UserVerification>> = {
  // A passkey alone signs in: the authenticator must verify the user (PIN, biometric).
  'sign-in': 'required',
  // After a password or an external provider, possession is the factor.
  'second-factor': 'discouraged',
};

const STALE_CEREMONY = 'the passkey challenge is invalid, expired, already used or for another ceremony; start again';
/** Sign-in ceremonies answer 401, registrations (a signed-in change) 422. */
export const invalidWebAuthnChallenge = () => new DomainError('invalid_challenge', STALE_CEREMONY, 'challenge');
const invalidRegistrationChallenge = () => new DomainError('invalid_registration_challenge', STALE_CEREMONY, 'challenge');
const passkeyNotVerified = () => new DomainError('passkey_invalid', 'the passkey could not be verified', 'response');
const registrationNotVerified = () => new DomainError('registration_not_verified', 'the passkey could not be verified', 'response');
const passkeyLimit = () => conflict('passkey_limit_reached', `at most ${MAX_PASSKEYS_PER_USER} passkeys per account`);

export interface CeremonyStart<Options> {
  options: Options;
  /** The `pnwebauthn` envelope to send back with the authenticator's response. */
  challenge: string;
  expiresAt: Date;
}

function sealCeremony<Options extends { challenge: string }>(
  ctx: PasskeyContext,
  subject: string,
  ceremony: Ceremony,
  options: Options,
  twoFactorId?: string,
): CeremonyStart<Options> {
  const data = { ceremony, challenge: options.challenge, ...(twoFactorId === undefined ? {} : { twoFactorId }) };
  const challenge = sealChallenge(ctx.keyring, ctx.clock, 'webauthn', subject, data);
  return { options, challenge, expiresAt: new Date(ctx.clock.now().getTime() + CHALLENGE_LIFETIME_MS.webauthn) };
}

/**
 * Spends a `pnwebauthn` envelope and returns the WebAuthn challenge it carries, or null when it
 * is malformed, expired, already used, or was issued to another subject, ceremony or `pn2fa`.
 */
function redeemCeremony(ctx: PasskeyContext, envelope: string, expected: { subject: string; ceremony: Ceremony; twoFactorId?: string }): string | null {
  let opened: Challenge;
  try {
    opened = openChallenge(ctx.keyring, ctx.clock, 'webauthn', envelope, consumedChallengeStore(ctx.db, ctx.clock));
  } catch {
    return null;
  }
  const data = opened.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  if (opened.subject !== expected.subject || data.ceremony !== expected.ceremony) return null;
  if ((data.twoFactorId ?? undefined) !== expected.twoFactorId) return null;
  return typeof data.challenge === 'string' && data.challenge !== '' ? data.challenge : null;
}

export function listPasskeysOf(db: Db, userId: string): Passkey[] {
  return db.select().from(passkey).where(eq(passkey.userId, userId)).orderBy(asc(passkey.id)).all();
}

function passkeyCount(db: Db, userId: string): number {
  return db.select({ n: count() }).from(passkey).where(eq(passkey.userId, userId)).get()?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Registration (signed in recently: a passkey outlives the session that added it)

export async function beginPasskeyRegistration(ctx: PasskeyContext, actor: Actor) {
  requireRecentSignIn(ctx.db, ctx.clock, actor);
  const me = findUser(ctx.db, actor.userId);
  if (!me) throw notFound('user');
  const existing = listPasskeysOf(ctx.db, me.id);
  if (existing.length >= MAX_PASSKEYS_PER_USER) throw passkeyLimit();
  const options = await registrationOptions(ctx.rp, me, existing);
  return sealCeremony(ctx, me.id, 'registration', options);
}

export async function completePasskeyRegistration(
  ctx: PasskeyContext,
  actor: Actor,
  input: { challenge: string; response: RegistrationResponseJSON; name?: string },
  meta: RequestMeta,
): Promise<Passkey> {
  // Checked again here: the envelope is not spent and no attempt is counted for a stale session.
  requireRecentSignIn(ctx.db, ctx.clock, actor);
  const attempt = beginAttempt(ctx.db, ctx.clock, 'passkey', { account: actor.userId, address: meta.address });
  const expectedChallenge = redeemCeremony(ctx, input.challenge, { subject: actor.userId, ceremony: 'registration' });
  if (expectedChallenge === null) {
    attempt.fail();
    throw invalidRegistrationChallenge();
  }
  const credential = await checkRegistration(ctx.rp, input.response, expectedChallenge);
  if (!credential) {
    attempt.fail();
    throw registrationNotVerified();
  }
  return ctx.db.transaction((tx) => {
    if (passkeyCount(tx as unknown as Db, actor.userId) >= MAX_PASSKEYS_PER_USER) throw passkeyLimit();
    const inserted = tx
      .insert(passkey)
      .values({
        userId: actor.userId,
        credentialId: credential.credentialId,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports,
        name: input.name ?? DEFAULT_PASSKEY_NAME,
        deviceType: credential.deviceType,
        isBackedUp: credential.isBackedUp,
      })
      .onConflictDoNothing({ target: passkey.credentialId })
      .returning()
      .all();
    if (inserted.length === 0) throw conflict('passkey_already_registered', 'this passkey is already registered', 'response');
    return inserted[0]!;
  });
}

// ---------------------------------------------------------------------------------------------
// Sign-in: discoverable (no user yet) or as the second factor of a pending pn2fa sign-in

export async function beginPasskeySignIn(ctx: PasskeyContext, input: { twoFactorChallenge?: string }) {
  if (input.twoFactorChallenge === undefined) {
    const options = await authenticationOptions(ctx.rp, null, USER_VERIFICATION['sign-in']);
    return sealCeremony(ctx, ANONYMOUS_SUBJECT, 'sign-in', options);
  }
  const pending = peekPending(ctx, input.twoFactorChallenge);
  const registered = listPasskeysOf(ctx.db, pending.subject);
  if (registered.length === 0) {
    throw new DomainError('no_passkey', 'this account has no passkey; use another second factor', 'twoFactorChallenge');
  }
  const options = await authenticationOptions(ctx.rp, registered, USER_VERIFICATION['second-factor']);
  return sealCeremony(ctx, pending.subject, 'second-factor', options, pending.id);
}

/** The pending pn2fa challenge (not spent), with its error pointing at our body field. */
function peekPending(ctx: PasskeyContext, envelope: string): Challenge {
  try {
    return peekSecondFactorChallenge(ctx, envelope);
  } catch (error) {
    if (error instanceof DomainError) throw error.relocated('twoFactorChallenge');
    throw error;
  }
}

function redeemPending(ctx: PasskeyContext, envelope: string) {
  try {
    return redeemSecondFactorChallenge(ctx, envelope);
  } catch (error) {
    if (error instanceof DomainError) throw error.relocated('twoFactorChallenge');
    throw error;
  }
}

/**
 * Records a verified use: the new counter, only if nobody moved it since it was read (of two
 * concurrent assertions signed with one counter value, one wins).
 */
function recordUse(db: Db, stored: Passkey, newCounter: number, isBackedUp: boolean, at: Date): boolean {
  const updated = db
    .update(passkey)
    .set({ counter: newCounter, isBackedUp, lastUsedAt: at })
    .where(and(eq(passkey.id, stored.id), eq(passkey.counter, stored.counter)))
    .returning({ id: passkey.id })
    .all();
  return updated.length === 1;
}

/**
 * Verifies the assertion and starts a session. Without `twoFactorChallenge` this is a passkey
 * sign-in (user verification required; it satisfies both factors); with it, the passkey
 * completes that pending sign-in as its second factor.
 */
export async function signInWithPasskey(
  ctx: PasskeyContext,
  input: { challenge: string; response: AuthenticationResponseJSON; twoFactorChallenge?: string },
  meta: RequestMeta,
): Promise<SessionStarted> {
  const byAddress = beginAttempt(ctx.db, ctx.clock, 'passkey', { address: meta.address });
  const pending = input.twoFactorChallenge === undefined ? null : peekPending(ctx, input.twoFactorChallenge);
  const ceremony = pending ? 'second-factor' : 'sign-in';
  const expectedChallenge = redeemCeremony(ctx, input.challenge, {
    subject: pending ? pending.subject : ANONYMOUS_SUBJECT,
    ceremony,
    ...(pending ? { twoFactorId: pending.id } : {}),
  });
  if (expectedChallenge === null) {
    byAddress.fail();
    throw invalidWebAuthnChallenge();
  }

  const stored = ctx.db.select().from(passkey).where(eq(passkey.credentialId, input.response.id)).get();
  if (!stored || (pending !== null && stored.userId !== pending.subject)) {
    byAddress.fail();
    throw passkeyNotVerified();
  }
  const attempt = beginAttempt(ctx.db, ctx.clock, 'passkey', { account: stored.userId, address: meta.address });
  // A discoverable credential names its user: it must be the credential's owner.
  if (pending === null && input.response.response.userHandle !== userHandleOf(stored.userId)) {
    attempt.fail();
    throw passkeyNotVerified();
  }
  const checked = await checkAuthentication(ctx.rp, input.response, expectedChallenge, stored, USER_VERIFICATION[ceremony]);
  if (!checked) {
    attempt.fail();
    throw passkeyNotVerified();
  }

  const signedIn = pending ? redeemPending(ctx, input.twoFactorChallenge!) : findUser(ctx.db, stored.userId);
  if (!signedIn) throw passkeyNotVerified();
  if (!recordUse(ctx.db, stored, checked.newCounter, checked.isBackedUp, ctx.clock.now())) throw passkeyNotVerified();
  return startSession(ctx, signedIn, meta);
}

// ---------------------------------------------------------------------------------------------
// Management (signed in)

export function listPasskeys(db: Db, actor: Actor): Passkey[] {
  requireSessionActor(actor);
  return listPasskeysOf(db, actor.userId);
}

/** Another user's passkey is 404, exactly like a missing one. */
export function renamePasskey(db: Db, actor: Actor, id: string, name: string): Passkey {
  requireSessionActor(actor);
  const updated = db
    .update(passkey)
    .set({ name })
    .where(and(eq(passkey.id, id), eq(passkey.userId, actor.userId)))
    .returning()
    .all();
  if (updated.length === 0) throw notFound('passkey');
  return updated[0]!;
}

/** Needs a recent sign-in: a stolen session must not take the owner's own passkeys away. */
export function deletePasskey(db: Db, clock: Clock, actor: Actor, id: string): void {
  requireRecentSignIn(db, clock, actor);
  const removed = db
    .delete(passkey)
    .where(and(eq(passkey.id, id), eq(passkey.userId, actor.userId)))
    .returning({ id: passkey.id })
    .all();
  if (removed.length === 0) throw notFound('passkey');
}
