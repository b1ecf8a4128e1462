/** The signed-in user's own account: who am I, password change, sign-up (development runtime). */
import { and, eq } from 'drizzle-orm';
import { hashPassword, verifyPassword } from '../../auth/password.ts';
import { RECENT_SIGN_IN_MS } from '../../contract/identity.ts';
import type { Db } from '../../db/client.ts';
import { apiToken, type MembershipRole, session, user } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError, notFound, validationFailed } from '../../lib/errors.ts';
import type { Actor } from '../actor.ts';
import { createOrganization } from '../organizations/service.ts';
import type { Queryable } from '../shared/database.ts';
import type { IdentityContext, RequestMeta } from './context.ts';
import { AttemptLimiter, attemptBuckets, emailSubject } from './rate-limit.ts';
import { revokeAllSessions } from './sessions.ts';
import { startSession } from './sign-in.ts';
import { assertPasswordAcceptable, emailInUse, findUser, findUserByEmail, normalizeEmail, preparePasswordUser, type SecondFactorMethod } from './users.ts';

/** Account routes change credentials: an API token (automation) may not use them. */
export function requireSessionActor(actor: Actor): void {
  if (actor.kind !== 'session') throw new DomainError('session_required', 'this needs a signed-in session, not an API token');
}


export const reauthenticationRequired = () =>
  new DomainError('reauthentication_required', `sign in again to do this: it needs a sign-in from the last ${RECENT_SIGN_IN_MS / 60_000} minutes`);

/**
 * The recent sign-in rule, for actions that would leave a stolen session cookie with a way in
 * that outlives it (a passkey, an API token, a first password, a TOTP secret) or take the
 * owner's own away (deleting a passkey), and that prove nothing else (no current password or
 * code). The session must have been created (every sign-in creates one) less than
 * RECENT_SIGN_IN_MS ago; otherwise 403 `reauthentication_required`. API tokens get 403
 * `session_required`, as on every account route. Checked before anything is read or written.
 */
export function requireRecentSignIn(db: Queryable, clock: Clock, actor: Actor): void {
  requireSessionActor(actor);
  const row = db
    .select({ createdAt: session.createdAt })
    .from(session)
    .where(and(eq(session.id, actor.credentialId), eq(session.userId, actor.userId)))
    .get();
  if (!row || clock.now().getTime() - row.createdAt.getTime() >= RECENT_SIGN_IN_MS) throw reauthenticationRequired();
}

/**
 * "Who am I" runs on every console page load: two bun:sqlite statements prepared once per
 * database (a drizzle query costs ten times more than running the SQL). Correlated subqueries
 * rather than joins: SQLite runs these shapes several times faster (scripts/bench/auth.ts).
 */
interface SummaryRow {
  id: string;
  email: string;
  displayName: string | null;
  isSuperadmin: number;
  createdAt: number;
  updatedAt: number;
  hasTotp: number;
  hasRecovery: number;
  hasPasskey: number;
}

function prepareSummary(db: Db) {
  return {
    user: db.$client.query<SummaryRow, [string]>(
      `SELECT u.id AS id, u.email AS email, u.display_name AS displayName, u.is_superadmin AS isSuperadmin,
              u.created_at AS createdAt, u.updated_at AS updatedAt,
              EXISTS (SELECT 1 FROM user_totp WHERE user_id = u.id AND confirmed_at IS NOT NULL) AS hasTotp,
              EXISTS (SELECT 1 FROM recovery_code WHERE user_id = u.id AND used_at IS NULL) AS hasRecovery,
              EXISTS (SELECT 1 FROM passkey WHERE user_id = u.id) AS hasPasskey
         FROM user u WHERE u.id = ?`,
    ),
    memberships: db.$client.query<{ organizationId: string; organizationName: string; role: MembershipRole }, [string]>(
      `SELECT m.organization_id AS organizationId, m.role AS role,
              (SELECT o.name FROM organization o WHERE o.id = m.organization_id) AS organizationName
         FROM membership m WHERE m.user_id = ?`,
    ),
  };
}

const summaries = new WeakMap<Db, ReturnType<typeof prepareSummary>>();

export function accountSummary(db: Db, actor: Actor) {
  let queries = summaries.get(db);
  if (!queries) summaries.set(db, (queries = prepareSummary(db)));
  const row = queries.user.get(actor.userId);
  if (!row) throw notFound('user');
  const methods: SecondFactorMethod[] = [];
  if (row.hasTotp) methods.push('totp');
  if (row.hasTotp && row.hasRecovery) methods.push('recovery');
  if (row.hasPasskey) methods.push('passkey');
  const me = {
    id: row.id,
    email: row.email,
    displayName: row.displayName,
    isSuperadmin: row.isSuperadmin === 1,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
  const memberships = queries.memberships
    .all(actor.userId)
    // Sorted here: ORDER BY would make SQLite build a temporary b-tree on every call.
    .sort((a, b) => (a.organizationId < b.organizationId ? -1 : 1))
    // An API token sees only the organization it is bound to, with its (capped) role.
    .filter((m) => actor.memberships.has(m.organizationId))
    .map((m) => ({ ...m, role: actor.memberships.get(m.organizationId)! }));
  return { user: me, methods, memberships };
}

/**
 * Changes (or, for an account without one, sets) the password. The current password is checked
 * against the sign-in limits; setting a first password proves nothing, so it needs a recent
 * sign-in instead. Every session of the user is revoked, the current one included,
 * and a fresh session is returned: a thief holding any old cookie is out, and the caller's own
 * token changes too (nothing captured before the change stays valid). API tokens are separate
 * credentials that automation holds, so they survive unless `revokeApiTokens` asks, in the same
 * step, to delete every token the user created (in every organization).
 */
export async function changePassword(
  ctx: IdentityContext,
  actor: Actor,
  input: { currentPassword?: string; newPassword: string; revokeApiTokens?: boolean },
  meta: RequestMeta,
) {
  requireSessionActor(actor);
  const me = findUser(ctx.db, actor.userId);
  if (!me) throw notFound('user');
  if (me.passwordHash === null) requireRecentSignIn(ctx.db, ctx.clock, actor);
  else {
    const limiter = new AttemptLimiter(ctx.db, ctx.clock);
    const buckets = attemptBuckets('sign-in', { account: emailSubject(normalizeEmail(me.email)), address: meta.address });
    limiter.check(buckets);
    if (input.currentPassword === undefined || !(await verifyPassword(input.currentPassword, me.passwordHash))) {
      limiter.fail(buckets);
      throw new DomainError('wrong_password', 'the current password is wrong', 'currentPassword');
    }
  }
  assertPasswordAcceptable(input.newPassword, me.email, 'newPassword');
  if (input.currentPassword !== undefined && input.currentPassword === input.newPassword) {
    throw validationFailed('the new password must differ from the current one', 'newPassword');
  }
  const passwordHash = await hashPassword(input.newPassword);
  ctx.db.transaction((tx) => {
    tx.update(user).set({ passwordHash }).where(eq(user.id, me.id)).run();
    revokeAllSessions(tx, me.id);
    if (input.revokeApiTokens) tx.delete(apiToken).where(eq(apiToken.userId, me.id)).run();
  });
  return startSession(ctx, { ...me, passwordHash }, meta);
}

/** Public sign-up (development runtime with PANEL_IS_SIGNUP_ENABLED): a user and their own organization. */
export async function signUp(
  ctx: IdentityContext,
  input: { email: string; password: string; organizationName: string; displayName?: string },
  meta: RequestMeta,
) {
  const prepared = await preparePasswordUser(ctx.db, input);
  const created = ctx.db.transaction((tx) => {
    if (findUserByEmail(tx, prepared.email)) throw emailInUse();
    const row = tx.insert(user).values({ ...prepared, displayName: input.displayName ?? null }).returning().get();
    // createOrganization nests its own transaction (a savepoint inside this one).
    const org = createOrganization(tx as unknown as Db, { name: input.organizationName, ownerUserId: row.id });
    return { user: row, organization: org };
  });
  return { ...created, token: startSession(ctx, created.user, meta).token };
}
