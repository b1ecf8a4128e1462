import { and, eq } from 'drizzle-orm';
import { hashToken } from '../../auth/token.ts';
import type { Db } from '../../db/client.ts';
import { apiToken, type MembershipRole, membership, session, user } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { type Actor, lowerRole } from '../actor.ts';

/** Sessions slide: each use moves expiry to now + this, at most once a minute (keeps writes rare). */
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
const SLIDE_GRANULARITY_MS = 60 * 1000;

export interface Credentials {
  /** The session token from the verified cookie. */
  sessionToken?: string | null;
  /** The `Authorization: Bearer` value. */
  bearer?: string | null;
}

/** Resolves a request's credentials to an Actor, or null when none is valid. */
export function resolveActor(db: Db, clock: Clock, credentials: Credentials): Actor | null {
  if (credentials.bearer) return resolveApiToken(db, clock, credentials.bearer);
  if (credentials.sessionToken) return resolveSession(db, clock, credentials.sessionToken);
  return null;
}

function resolveSession(db: Db, clock: Clock, token: string): Actor | null {
  const now = clock.now();
  const row = db
    .select({ id: session.id, userId: session.userId, expiresAt: session.expiresAt, isSuperadmin: user.isSuperadmin })
    .from(session)
    .innerJoin(user, eq(user.id, session.userId))
    .where(eq(session.tokenHash, hashToken(token)))
    .get();
  if (!row || row.expiresAt.getTime() <= now.getTime()) return null;

  const slidTo = now.getTime() + SESSION_LIFETIME_MS;
  if (slidTo - row.expiresAt.getTime() >= SLIDE_GRANULARITY_MS) {
    db.update(session).set({ expiresAt: new Date(slidTo), lastSeenAt: now }).where(eq(session.id, row.id)).run();
  }
  const memberships = new Map<string, MembershipRole>(
    db
      .select({ organizationId: membership.organizationId, role: membership.role })
      .from(membership)
      .where(eq(membership.userId, row.userId))
      .all()
      .map((m) => [m.organizationId, m.role]),
  );
  return { kind: 'session', userId: row.userId, isSuperadmin: row.isSuperadmin, credentialId: row.id, memberships };
}

function resolveApiToken(db: Db, clock: Clock, token: string): Actor | null {
  const now = clock.now();
  const row = db
    .select({
      id: apiToken.id,
      userId: apiToken.userId,
      organizationId: apiToken.organizationId,
      role: apiToken.role,
      expiresAt: apiToken.expiresAt,
      memberRole: membership.role,
    })
    .from(apiToken)
    // The creator must still be a member: removing a member silences their tokens too.
    .innerJoin(membership, and(eq(membership.userId, apiToken.userId), eq(membership.organizationId, apiToken.organizationId)))
    .where(eq(apiToken.tokenHash, hashToken(token)))
    .get();
  if (!row || (row.expiresAt && row.expiresAt.getTime() <= now.getTime())) return null;
  // A token never grants more than its creator holds today.
  const role = lowerRole(row.role, row.memberRole);
  return {
    kind: 'token',
    userId: row.userId,
    // Automation tokens never carry instance-wide superadmin power.
    isSuperadmin: false,
    credentialId: row.id,
    memberships: new Map([[row.organizationId, role]]),
  };
}
