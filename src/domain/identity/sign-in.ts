/**
 * Signing in: the password step, and the second-factor step that completes a pending `pn2fa`
 * challenge. Every attempt counts against the per-account and per-address limits; an unknown
 * e-mail spends a full Argon2 verification, so timing does not tell whether an account exists.
 */
import { eq } from 'drizzle-orm';
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../../auth/password.ts';
import { type Challenge, CHALLENGE_LIFETIME_MS, openChallenge, peekChallenge, sealChallenge } from '../../crypto/index.ts';
import { type User, user } from '../../db/schema/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { consumedChallengeStore } from './challenges.ts';
import type { IdentityContext, RequestMeta } from './context.ts';
import { AttemptLimiter, attemptBuckets, emailSubject } from './rate-limit.ts';
import { checkTotp, findRecoveryCode, findTotp, invalidCode, spendRecoveryCode, spendTotpStep } from './second-factor.ts';
import { createSession } from './sessions.ts';
import { findUser, findUserByEmail, normalizeEmail, type SecondFactorMethod, secondFactorMethods } from './users.ts';

export interface SessionStarted {
  kind: 'session';
  user: User;
  token: string;
  sessionId: string;
}

export type SignInResult =
  | SessionStarted
  | { kind: 'second_factor'; challenge: string; expiresAt: Date; methods: SecondFactorMethod[] };

export const invalidCredentials = () => new DomainError('invalid_credentials', 'e-mail or password is wrong');
export const invalidChallenge = () =>
  new DomainError('invalid_challenge', 'the sign-in challenge is invalid, expired or already used; sign in again', 'challenge');

/** A new session for `user` (a fresh token every time: no fixation). */
export function startSession(ctx: IdentityContext, signedIn: User, meta: RequestMeta): SessionStarted {
  const { token, sessionId } = createSession(ctx.db, ctx.clock, signedIn.id, { ip: meta.address, userAgent: meta.userAgent });
  return { kind: 'session', user: signedIn, token, sessionId };
}

/**
 * After a first factor (password, or an external identity provider): a session, or a pending
 * `pn2fa` challenge when the user has TOTP or a passkey.
 */
export function completeFirstFactor(ctx: IdentityContext, signedIn: User, meta: RequestMeta): SignInResult {
  const methods = secondFactorMethods(ctx.db, signedIn.id);
  if (methods.length === 0) return startSession(ctx, signedIn, meta);
  const challenge = sealChallenge(ctx.keyring, ctx.clock, '2fa', signedIn.id, { methods });
  return { kind: 'second_factor', challenge, expiresAt: new Date(ctx.clock.now().getTime() + CHALLENGE_LIFETIME_MS['2fa']), methods };
}

export async function signInWithPassword(
  ctx: IdentityContext,
  input: { email: string; password: string },
  meta: RequestMeta,
): Promise<SignInResult> {
  const email = normalizeEmail(input.email);
  const limiter = new AttemptLimiter(ctx.db, ctx.clock);
  const buckets = attemptBuckets('sign-in', { account: emailSubject(email), address: meta.address });
  limiter.check(buckets);

  const found = findUserByEmail(ctx.db, email);
  const stored = found?.passwordHash ?? null;
  const matches = await verifyPassword(input.password, stored ?? (await dummyPasswordHash()));
  if (!found || stored === null || !matches) {
    limiter.fail(buckets);
    throw invalidCredentials();
  }
  if (needsRehash(stored)) {
    ctx.db.update(user).set({ passwordHash: await hashPassword(input.password) }).where(eq(user.id, found.id)).run();
  }
  return completeFirstFactor(ctx, found, meta);
}

/**
 * Verifies a pending `pn2fa` challenge without spending it (a mistyped code must not burn it).
 * Once the second factor checked out, `redeemSecondFactorChallenge` spends it.
 */
export function peekSecondFactorChallenge(ctx: IdentityContext, envelope: string): Challenge {
  try {
    return peekChallenge(ctx.keyring, ctx.clock, '2fa', envelope);
  } catch {
    throw invalidChallenge();
  }
}

/** Spends the challenge (it redeems once) and returns the user it was issued to. */
export function redeemSecondFactorChallenge(ctx: IdentityContext, envelope: string): User {
  let challenge: Challenge;
  try {
    challenge = openChallenge(ctx.keyring, ctx.clock, '2fa', envelope, consumedChallengeStore(ctx.db, ctx.clock));
  } catch {
    throw invalidChallenge();
  }
  const signedIn = findUser(ctx.db, challenge.subject);
  if (!signedIn) throw invalidChallenge();
  return signedIn;
}

/** The second step with a TOTP code or a recovery code. */
export function signInWithSecondFactor(
  ctx: IdentityContext,
  input: { challenge: string; code: string; method: 'totp' | 'recovery' },
  meta: RequestMeta,
): SessionStarted {
  const limiter = new AttemptLimiter(ctx.db, ctx.clock);
  limiter.check(attemptBuckets('second-factor', { address: meta.address }));
  const challenge = peekSecondFactorChallenge(ctx, input.challenge);
  const buckets = attemptBuckets('second-factor', { account: challenge.subject, address: meta.address });
  limiter.check(buckets);

  const totp = findTotp(ctx.db, challenge.subject);
  let spend: (() => boolean) | null = null;
  if (totp?.confirmedAt && input.method === 'totp') {
    const step = checkTotp(ctx, totp, input.code);
    if (step !== null) spend = () => spendTotpStep(ctx.db, totp, step);
  } else if (totp?.confirmedAt && input.method === 'recovery') {
    const code = findRecoveryCode(ctx.db, challenge.subject, input.code);
    if (code) spend = () => spendRecoveryCode(ctx.db, code.id, ctx.clock.now());
  }
  if (!spend) {
    limiter.fail(buckets);
    throw invalidCode();
  }
  // Redeem the challenge before spending the code: a replayed challenge must not burn a code.
  const signedIn = redeemSecondFactorChallenge(ctx, input.challenge);
  // Spending is atomic: of two concurrent requests with one code, only one gets here.
  if (!spend()) throw invalidCode();
  return startSession(ctx, signedIn, meta);
}
