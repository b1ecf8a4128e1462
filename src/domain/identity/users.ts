/** Users as identity flows need them: lookup by e-mail, creation with a password, presentation. */
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { hashPassword, passwordProblem } from '../../auth/password.ts';
import type { Db } from '../../db/client.ts';
import { passkey, recoveryCode, type User, user, userTotp } from '../../db/schema/index.ts';
import { conflict, validationFailed } from '../../lib/errors.ts';
import type { Queryable } from '../shared/database.ts';

/** E-mails are stored and compared lower-cased (the unique index folds ASCII only). */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function findUserByEmail(db: Queryable, email: string): User | undefined {
  return db.select().from(user).where(eq(sql`lower(${user.email})`, normalizeEmail(email))).get();
}

export function findUser(db: Queryable, id: string): User | undefined {
  return db.select().from(user).where(eq(user.id, id)).get();
}

export function assertPasswordAcceptable(password: string, email: string, path = 'password'): void {
  const problem = passwordProblem(password, email);
  if (problem) throw validationFailed(problem, path);
}

export const emailInUse = () => conflict('email_in_use', 'an account with this e-mail already exists', 'email');

/** Checks the policy and hashes; the (synchronous) insert happens in the caller's transaction. */
export async function preparePasswordUser(db: Db, input: { email: string; password: string }) {
  const email = normalizeEmail(input.email);
  assertPasswordAcceptable(input.password, email);
  if (findUserByEmail(db, email)) throw emailInUse();
  return { email, passwordHash: await hashPassword(input.password) };
}

export type SecondFactorMethod = 'totp' | 'recovery' | 'passkey';

/** The second factors a user has enabled; empty when a password alone signs them in. */
export function secondFactorMethods(db: Queryable, userId: string): SecondFactorMethod[] {
  const methods: SecondFactorMethod[] = [];
  const totp = db.select({ id: userTotp.id }).from(userTotp).where(and(eq(userTotp.userId, userId), isNotNull(userTotp.confirmedAt))).get();
  if (totp) {
    methods.push('totp');
    const code = db.select({ id: recoveryCode.id }).from(recoveryCode).where(and(eq(recoveryCode.userId, userId), isNull(recoveryCode.usedAt))).get();
    if (code) methods.push('recovery');
  }
  if (db.select({ id: passkey.id }).from(passkey).where(eq(passkey.userId, userId)).get()) methods.push('passkey');
  return methods;
}

export function isTotpEnabled(db: Queryable, userId: string): boolean {
  return secondFactorMethods(db, userId).includes('totp');
}
