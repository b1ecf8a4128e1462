import { and, eq, gt } from 'drizzle-orm';
import { hashToken, newOpaqueToken } from '../../auth/token.ts';
import type { Db } from '../../db/client.ts';
import { session } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import type { Queryable } from '../shared/database.ts';
import { SESSION_LIFETIME_MS } from './resolve.ts';

/** A new session (a new token at every sign-in: no fixation). Returns the token, shown once. */
export function createSession(db: Db, clock: Clock, userId: string, meta: { ip?: string | null; userAgent?: string | null } = {}) {
  const token = newOpaqueToken('pns');
  const now = clock.now();
  const row = db
    .insert(session)
    .values({
      userId,
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
      lastSeenAt: now,
      createdIp: meta.ip ?? null,
      userAgent: meta.userAgent?.slice(0, 512) ?? null,
      // From the injected clock, not the SQL default: the recent sign-in rule (account.ts) reads it.
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: session.id })
    .get();
  return { sessionId: row.id, token };
}

export function revokeSession(db: Db, sessionId: string): void {
  db.delete(session).where(eq(session.id, sessionId)).run();
}

export function revokeAllSessions(db: Queryable, userId: string): void {
  db.delete(session).where(eq(session.userId, userId)).run();
}

/** The user's live sessions, oldest first. */
export function listSessions(db: Db, clock: Clock, userId: string) {
  return db
    .select()
    .from(session)
    .where(and(eq(session.userId, userId), gt(session.expiresAt, clock.now())))
    .orderBy(session.id)
    .all();
}

/** Revokes one of the user's own sessions; another user's session id is 404 like a missing one. */
export function revokeOwnSession(db: Db, userId: string, sessionId: string): void {
  const removed = db
    .delete(session)
    .where(and(eq(session.id, sessionId), eq(session.userId, userId)))
    .returning({ id: session.id })
    .all();
  if (removed.length === 0) throw notFound('session');
}
