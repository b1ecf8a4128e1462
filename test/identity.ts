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
