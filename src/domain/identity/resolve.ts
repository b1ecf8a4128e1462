import { eq } from 'drizzle-orm';
import { hashToken } from '../../auth/token.ts';
import type { Db } from '../../db/client.ts';
import { apiToken, type MembershipRole, session } from '../../db/schema/index.ts';
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

interface SessionRow {
  id: string;
  userId: string;
  expiresAt: number;
  isSuperadmin: number;
  /** `<organizationId>:<role>` pairs joined by commas (UUIDs and roles hold neither character); null without any. */
  memberships: string | null;
}

interface TokenRow {
  id: string;
  userId: string;
  organizationId: string;
  role: MembershipRole;
  expiresAt: number | null;
  lastUsedAt: number | null;
  /** Null when the creator is no longer a member: the token is then dead. */
  memberRole: MembershipRole | null;
}

/**
 * Every authenticated request runs these, so they are bun:sqlite statements prepared once per
 * database: a drizzle query costs ten times more than running the SQL (scripts/bench/auth.ts).
 * The rare writes (slide, last use) go through drizzle.
 */
function prepareStatements(db: Db) {
  const sqlite = db.$client;
  return {
    session: sqlite.query<SessionRow, [string]>(
      // One statement, correlated subqueries rather than JOINs: SQLite runs this shape several
      // times faster here, and one call beats two.
      `SELECT s.id AS id, s.user_id AS userId, s.expires_at AS expiresAt,
              (SELECT u.is_superadmin FROM user u WHERE u.id = s.user_id) AS isSuperadmin,
              (SELECT group_concat(m.organization_id || ':' || m.role) FROM membership m WHERE m.user_id = s.user_id) AS memberships
         FROM session s WHERE s.token_hash = ?`,
    ),
    // The creator must still be a member (memberRole not null): removing a member silences their tokens.
    apiToken: sqlite.query<TokenRow, [string]>(
      `SELECT t.id AS id, t.user_id AS userId, t.organization_id AS organizationId, t.role AS role,
              t.expires_at AS expiresAt, t.last_used_at AS lastUsedAt,
              (SELECT m.role FROM membership m WHERE m.organization_id = t.organization_id AND m.user_id = t.user_id) AS memberRole
         FROM api_token t WHERE t.token_hash = ?`,
    ),
  };
}

const prepared = new WeakMap<Db, ReturnType<typeof prepareStatements>>();

function statements(db: Db) {
  let found = prepared.get(db);
  if (!found) {
    found = prepareStatements(db);
    prepared.set(db, found);
  }
  return found;
}

/** Resolves a request's credentials to an Actor, or null when none is valid. */
export function resolveActor(db: Db, clock: Clock, credentials: Credentials): Actor | null {
  if (credentials.bearer) return resolveApiToken(db, clock, credentials.bearer);
  if (credentials.sessionToken) return resolveSession(db, clock, credentials.sessionToken);
  return null;
}

/**
 * SHA-256 of session tokens seen to be live, so a browser's repeated requests skip rehashing
 * (every request pays it otherwise). Only hashes that matched a session are kept; cleared when full.
 */
const liveSessionHashes = new Map<string, string>();
const LIVE_SESSION_HASHES_MAX = 10_000;

function resolveSession(db: Db, clock: Clock, token: string): Actor | null {
  const now = clock.now();
  const known = liveSessionHashes.get(token);
  const tokenHash = known ?? hashToken(token);
  const row = statements(db).session.get(tokenHash);
  if (!row || row.expiresAt <= now.getTime()) return null;
  if (known === undefined) {
    if (liveSessionHashes.size >= LIVE_SESSION_HASHES_MAX) liveSessionHashes.clear();
    liveSessionHashes.set(token, tokenHash);
  }

  const slidTo = now.getTime() + SESSION_LIFETIME_MS;
  if (slidTo - row.expiresAt >= SLIDE_GRANULARITY_MS) {
    db.update(session).set({ expiresAt: new Date(slidTo), lastSeenAt: now }).where(eq(session.id, row.id)).run();
  }
  const memberships = new Map<string, MembershipRole>();
  for (const pair of row.memberships?.split(',') ?? []) {
    const colon = pair.indexOf(':');
    memberships.set(pair.slice(0, colon), pair.slice(colon + 1) as MembershipRole);
  }
  return { kind: 'session', userId: row.userId, isSuperadmin: row.isSuperadmin === 1, credentialId: row.id, memberships };
}

function resolveApiToken(db: Db, clock: Clock, token: string): Actor | null {
  const now = clock.now();
  const row = statements(db).apiToken.get(hashToken(token));
  if (!row || row.memberRole === null || (row.expiresAt !== null && row.expiresAt <= now.getTime())) return null;
  // Shown in the token list; written at most once a minute, like the session slide.
  if (row.lastUsedAt === null || now.getTime() - row.lastUsedAt >= SLIDE_GRANULARITY_MS) {
    db.update(apiToken).set({ lastUsedAt: now }).where(eq(apiToken.id, row.id)).run();
  }
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
