import type { Statement } from 'bun:sqlite';
import { eq } from 'drizzle-orm';
import { hashToken } from '../../auth/token.ts';
import type { Db } from '../../db/client.ts';
import { unlessDiskFull } from '../../db/errors.ts';
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
 * Per database: the credential lookups and the change check every authenticated request runs,
 * as bun:sqlite statements prepared once (a drizzle query costs ten times more than running the
 * SQL, scripts/bench/auth.ts), and the credentials resolved so far. The rare writes (slide, last
 * use) go through drizzle.
 */
function prepareState(db: Db) {
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
    // Changes only when another connection commits (this one's own writes leave it alone).
    dataVersion: sqlite.query<{ data_version: number }, []>('PRAGMA data_version'),
    // Rows this connection has inserted, updated or deleted, ever (rolled back ones included).
    totalChanges: sqlite.query<{ changes: number }, []>('SELECT total_changes() AS changes'),
    sessions: new Map<string, Resolved<SessionRow>>(),
    tokens: new Map<string, Resolved<TokenRow>>(),
  };
}

type State = ReturnType<typeof prepareState>;

/**
 * A credential's row as last read, by the token presented: a browser or a script sends the same
 * token on every request. It answers only while the database is unchanged since that read: no
 * row written through this connection and no commit from any other. Any write at all (a
 * revocation, a role change, a removed membership, from this process or another one) sends the
 * next request back to the lookup, so nothing is ever answered from rows the database no longer
 * holds; expiry is checked on every use. The check reads no table, so it costs a fraction of
 * hashing the token and running the lookup (scripts/bench/auth.ts). Only tokens that matched a
 * row are kept, so a stream of forged ones cannot grow the cache; it is cleared when full.
 */
interface Resolved<Row> {
  tokenHash: string;
  row: Row;
  /** Shared, read-only, by every actor built from this entry. */
  memberships: ReadonlyMap<string, MembershipRole>;
  dataVersion: number;
  totalChanges: number;
}

const RESOLVED_MAX = 10_000;

const states = new WeakMap<Db, State>();

function stateOf(db: Db): State {
  let state = states.get(db);
  if (!state) {
    state = prepareState(db);
    states.set(db, state);
  }
  return state;
}

/** The row `token` resolves to, remembered or looked up; null when none (or `membershipsOf` refuses it). */
function lookUp<Row>(
  state: State,
  resolved: Map<string, Resolved<Row>>,
  query: Statement<Row, [string]>,
  membershipsOf: (row: Row) => ReadonlyMap<string, MembershipRole> | null,
  token: string,
): Resolved<Row> | null {
  const dataVersion = state.dataVersion.get()!.data_version;
  const totalChanges = state.totalChanges.get()!.changes;
  const known = resolved.get(token);
  if (known && known.dataVersion === dataVersion && known.totalChanges === totalChanges) return known;
  const tokenHash = known?.tokenHash ?? hashToken(token);
  const row = query.get(tokenHash);
  const memberships = row && membershipsOf(row);
  if (!row || !memberships) {
    resolved.delete(token);
    return null;
  }
  if (!known && resolved.size >= RESOLVED_MAX) resolved.clear();
  const entry = { tokenHash, row, memberships, dataVersion, totalChanges };
  resolved.set(token, entry);
  return entry;
}

/** Resolves a request's credentials to an Actor, or null when none is valid. */
export function resolveActor(db: Db, clock: Clock, credentials: Credentials): Actor | null {
  if (credentials.bearer) return resolveApiToken(db, clock, credentials.bearer);
  if (credentials.sessionToken) return resolveSession(db, clock, credentials.sessionToken);
  return null;
}

function sessionMemberships(row: SessionRow): ReadonlyMap<string, MembershipRole> {
  const memberships = new Map<string, MembershipRole>();
  for (const pair of row.memberships?.split(',') ?? []) {
    const colon = pair.indexOf(':');
    memberships.set(pair.slice(0, colon), pair.slice(colon + 1) as MembershipRole);
  }
  return memberships;
}

function resolveSession(db: Db, clock: Clock, token: string): Actor | null {
  const state = stateOf(db);
  const found = lookUp(state, state.sessions, state.session, sessionMemberships, token);
  const now = clock.now();
  if (!found || found.row.expiresAt <= now.getTime()) return null;
  const { row } = found;
  const slidTo = now.getTime() + SESSION_LIFETIME_MS;
  if (slidTo - row.expiresAt >= SLIDE_GRANULARITY_MS) {
    unlessDiskFull(() => db.update(session).set({ expiresAt: new Date(slidTo), lastSeenAt: now }).where(eq(session.id, row.id)).run());
  }
  return { kind: 'session', userId: row.userId, isSuperadmin: row.isSuperadmin === 1, credentialId: row.id, memberships: found.memberships };
}

/** A token never grants more than its creator holds today; a creator who left makes it dead (null). */
const tokenMemberships = (row: TokenRow): ReadonlyMap<string, MembershipRole> | null =>
  row.memberRole === null ? null : new Map([[row.organizationId, lowerRole(row.role, row.memberRole)]]);

function resolveApiToken(db: Db, clock: Clock, token: string): Actor | null {
  const state = stateOf(db);
  const found = lookUp(state, state.tokens, state.apiToken, tokenMemberships, token);
  const now = clock.now();
  if (!found) return null;
  const { row } = found;
  if (row.expiresAt !== null && row.expiresAt <= now.getTime()) return null;
  // Shown in the token list; written at most once a minute, like the session slide.
  if (row.lastUsedAt === null || now.getTime() - row.lastUsedAt >= SLIDE_GRANULARITY_MS) {
    unlessDiskFull(() => db.update(apiToken).set({ lastUsedAt: now }).where(eq(apiToken.id, row.id)).run());
  }
  return {
    kind: 'token',
    userId: row.userId,
    // Automation tokens never carry instance-wide superadmin power.
    isSuperadmin: false,
    credentialId: row.id,
    memberships: found.memberships,
  };
}
