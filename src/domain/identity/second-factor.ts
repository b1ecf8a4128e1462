/**
 * TOTP enrolment and recovery codes. The TOTP secret is stored sealed (`pnsecret`, bound to its
 * row) and shown once at enrolment; codes are single use (the last accepted time step is stored
 * and only a later step is accepted). Confirming TOTP issues ten recovery codes, stored hashed.
 */
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { generateRecoveryCodes, hashRecoveryCode, looksLikeRecoveryCode } from '../../auth/recovery-codes.ts';
import type * as Totp from '../../auth/totp.ts';
import { openSecret, type SecretOwner, sealSecret } from '../../crypto/index.ts';
import { recoveryCode, type UserTotp, userTotp } from '../../db/schema/index.ts';
import { conflict, DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Queryable } from '../shared/database.ts';
import type { IdentityContext } from './context.ts';
import { AttemptLimiter, attemptBuckets } from './rate-limit.ts';
import { revokeAllSessions } from './sessions.ts';

/** The TOTP library loads at the first second-factor check or enrolment: most requests never need it. */
const totp = (): typeof Totp => require('../../auth/totp.ts');

export const totpSecretOwner = (id: string): SecretOwner => ({ table: 'user_totp', column: 'secret', id });

/** A sign-in's second factor refused (401). */
export const invalidCode = () => new DomainError('invalid_code', 'the code is not valid', 'code');
/** A signed-in change of second factor given a wrong code (422). */
const wrongCode = () => new DomainError('wrong_code', 'the code is not valid', 'code');

export function findTotp(db: Queryable, userId: string): UserTotp | undefined {
  return db.select().from(userTotp).where(eq(userTotp.userId, userId)).get();
}

/** The TOTP code's time step when it is valid and newer than the last accepted one; null otherwise. */
export function checkTotp(ctx: IdentityContext, row: UserTotp, code: string): number | null {
  const secret = openSecret(ctx.keyring, row.secret, totpSecretOwner(row.id));
  return totp().matchTotp(secret, code, ctx.clock.now(), row.lastUsedStep);
}

/** Spends a checked step; false when a concurrent request spent it (or a later one) first. */
export function spendTotpStep(db: Queryable, row: UserTotp, step: number): boolean {
  const spent = db
    .update(userTotp)
    .set({ lastUsedStep: step })
    .where(and(eq(userTotp.id, row.id), or(isNull(userTotp.lastUsedStep), lt(userTotp.lastUsedStep, step))))
    .returning({ id: userTotp.id })
    .all();
  return spent.length === 1;
}

/** The unused recovery code matching `code`, if any. */
export function findRecoveryCode(db: Queryable, userId: string, code: string) {
  if (!looksLikeRecoveryCode(code)) return undefined;
  return db
    .select()
    .from(recoveryCode)
    .where(and(eq(recoveryCode.userId, userId), eq(recoveryCode.codeHash, hashRecoveryCode(code)), isNull(recoveryCode.usedAt)))
    .get();
}

export function spendRecoveryCode(db: Queryable, id: string, at: Date): boolean {
  const spent = db
    .update(recoveryCode)
    .set({ usedAt: at })
    .where(and(eq(recoveryCode.id, id), isNull(recoveryCode.usedAt)))
    .returning({ id: recoveryCode.id })
    .all();
  return spent.length === 1;
}

/** Replaces the user's recovery codes with ten new ones; returns them (shown once). */
export function replaceRecoveryCodes(db: Queryable, userId: string): string[] {
  const codes = generateRecoveryCodes();
  db.delete(recoveryCode).where(eq(recoveryCode.userId, userId)).run();
  db.insert(recoveryCode).values(codes.map((code) => ({ userId, codeHash: hashRecoveryCode(code) }))).run();
  return codes;
}

/** Starts (or restarts) TOTP enrolment. The secret and URI are shown once. */
export function enrolTotp(ctx: IdentityContext, userId: string, accountName: string) {
  const existing = findTotp(ctx.db, userId);
  if (existing?.confirmedAt) throw conflict('totp_already_enabled', 'TOTP is already enabled; disable it first');
  const secret = totp().generateTotpSecret();
  const id = newId();
  ctx.db.transaction((tx) => {
    if (existing) tx.delete(userTotp).where(eq(userTotp.id, existing.id)).run();
    tx.insert(userTotp).values({ id, userId, secret: sealSecret(ctx.keyring, secret, totpSecretOwner(id)) }).run();
  });
  return { secret, uri: totp().totpUri(secret, accountName) };
}

/**
 * A TOTP code (or, where allowed, a recovery code) for a user who is already signed in, limited
 * like the sign-in step. Spends what it accepts.
 */
function verifySignedInCode(ctx: IdentityContext, row: UserTotp, code: string, address: string, allowRecovery: boolean): void {
  const limiter = new AttemptLimiter(ctx.db, ctx.clock);
  const buckets = attemptBuckets('second-factor', { account: row.userId, address });
  limiter.check(buckets);
  const step = checkTotp(ctx, row, code);
  if (step !== null && spendTotpStep(ctx.db, row, step)) return;
  const recovery = allowRecovery && step === null ? findRecoveryCode(ctx.db, row.userId, code) : undefined;
  if (recovery && spendRecoveryCode(ctx.db, recovery.id, ctx.clock.now())) return;
  limiter.fail(buckets);
  throw wrongCode();
}

/** Confirms a pending enrolment with a first code; returns the ten recovery codes (shown once). */
export function confirmTotp(ctx: IdentityContext, userId: string, code: string, address: string): string[] {
  const row = findTotp(ctx.db, userId);
  if (!row || row.confirmedAt) throw conflict('totp_not_pending', 'no TOTP enrolment is waiting for confirmation');
  verifySignedInCode(ctx, row, code, address, false);
  return ctx.db.transaction((tx) => {
    tx.update(userTotp).set({ confirmedAt: ctx.clock.now() }).where(eq(userTotp.id, row.id)).run();
    return replaceRecoveryCodes(tx, userId);
  });
}

function requireEnabledTotp(ctx: IdentityContext, userId: string): UserTotp {
  const row = findTotp(ctx.db, userId);
  if (!row?.confirmedAt) throw conflict('totp_not_enabled', 'TOTP is not enabled');
  return row;
}

/**
 * Turns TOTP off (a TOTP or recovery code proves possession) and drops the recovery codes. A
 * second-factor reset revokes every session of the user; the caller issues a fresh one.
 */
export function disableTotp(ctx: IdentityContext, userId: string, code: string, address: string): void {
  const row = requireEnabledTotp(ctx, userId);
  verifySignedInCode(ctx, row, code, address, true);
  ctx.db.transaction((tx) => {
    tx.delete(userTotp).where(eq(userTotp.id, row.id)).run();
    tx.delete(recoveryCode).where(eq(recoveryCode.userId, userId)).run();
  });
  revokeAllSessions(ctx.db, userId);
}

/** Ten new recovery codes (the old ones stop working), proven with a current TOTP code. */
export function regenerateRecoveryCodes(ctx: IdentityContext, userId: string, code: string, address: string): string[] {
  const row = requireEnabledTotp(ctx, userId);
  verifySignedInCode(ctx, row, code, address, false);
  return ctx.db.transaction((tx) => replaceRecoveryCodes(tx, userId));
}
