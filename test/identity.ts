/**
 * Test identities: a user who owns a fresh organization (made by the real domain function) and
 * signs in with a real session cookie or API token, so tests go through the real client guard.
 */
import { hashToken, newOpaqueToken, signCookieValue } from '../src/auth/token.ts';
import { apiToken, type MembershipRole, membership, user } from '../src/db/schema/index.ts';
import { createSession } from '../src/domain/identity/sessions.ts';
import { createOrganization } from '../src/domain/organizations/service.ts';
import { sessionCookieName } from '../src/http/plugins/guard.ts';
import type { TestApp } from './harness.ts';

let counter = 0;

export interface TestCaller {
  userId: string;
  organizationId: string;
  /** Headers that authenticate as this caller (cookie + same Origin, so writes pass CSRF). */
  headers: Record<string, string>;
}

function sessionHeaders(t: TestApp, userId: string): Record<string, string> {
  const { token } = createSession(t.db, t.clock, userId);
  return {
    cookie: `${sessionCookieName(t.config.publicUrl)}=${encodeURIComponent(signCookieValue(t.deps.keyring, token))}`,
    origin: new URL(t.config.publicUrl).origin,
  };
}

export function createUser(t: TestApp, opts: { isSuperadmin?: boolean; email?: string } = {}) {
  counter += 1;
  return t.db
    .insert(user)
    .values({ email: opts.email ?? `user${counter}-${Date.now()}@example.test`, isSuperadmin: opts.isSuperadmin ?? false })
    .returning()
    .get();
}

/** A new organization owned by a new user, signed in by session. */
export function createOwner(t: TestApp, opts: { isSuperadmin?: boolean; organizationName?: string } = {}): TestCaller {
  const owner = createUser(t, opts);
  const org = createOrganization(t.db, { name: opts.organizationName ?? `Org ${counter}`, ownerUserId: owner.id });
  return { userId: owner.id, organizationId: org.id, headers: sessionHeaders(t, owner.id) };
}

/** Another user with `role` in an existing organization, signed in by session. */
export function addMember(t: TestApp, organizationId: string, role: MembershipRole): TestCaller {
  const member = createUser(t);
  t.db.insert(membership).values({ organizationId, userId: member.id, role }).run();
  return { userId: member.id, organizationId, headers: sessionHeaders(t, member.id) };
}

/** An API token for an existing member, sent as a Bearer header. */
export function tokenFor(t: TestApp, caller: TestCaller, role: MembershipRole): Record<string, string> {
  const token = newOpaqueToken('pat');
  t.db
    .insert(apiToken)
    .values({ organizationId: caller.organizationId, userId: caller.userId, name: 'test', role, tokenHash: hashToken(token) })
    .run();
  return { authorization: `Bearer ${token}` };
}

/** The Origin header of the test app's public URL (cookie writes must carry it). */
export const originOf = (t: TestApp): Record<string, string> => ({ origin: new URL(t.config.publicUrl).origin });

/** `name=value` of the session cookie a response set, as a request Cookie header; null when none. */
export function cookieFrom(t: TestApp, headers: Headers): string | null {
  const name = sessionCookieName(t.config.publicUrl);
  const header = headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  if (!header) return null;
  const pair = header.split(';')[0]!;
  return pair === `${name}=` ? null : pair;
}

/** A user with a real Argon2id password (and optionally their own organization). */
export async function createPasswordUser(
  t: TestApp,
  opts: { email?: string; password?: string; isSuperadmin?: boolean; withOrganization?: boolean } = {},
) {
  const { hashPassword } = await import('../src/auth/password.ts');
  counter += 1;
  const email = opts.email ?? `person${counter}@example.test`;
  const password = opts.password ?? 'correct horse battery staple';
  const row = t.db
    .insert(user)
    .values({ email, passwordHash: await hashPassword(password), isSuperadmin: opts.isSuperadmin ?? false })
    .returning()
    .get();
  const organizationId =
    opts.withOrganization === false ? null : createOrganization(t.db, { name: `Org ${counter}`, ownerUserId: row.id }).id;
  return { userId: row.id, email, password, organizationId };
}

/** Signs in through the real route; returns the response and request headers for the new session. */
export async function signIn(t: TestApp, email: string, password: string, extra: Record<string, string> = {}) {
  const res = await t.request('POST', '/api/client/v1/auth/sign-in', { email, password }, { ...originOf(t), ...extra });
  const cookie = cookieFrom(t, res.headers);
  return { res, headers: cookie ? { cookie, ...originOf(t) } : null };
}
