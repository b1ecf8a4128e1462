/**
 * Invitations: an admin or owner invites an e-mail with a role no higher than their own. The
 * token is shown once (only its hash is stored), expires after a week and is spent on accept.
 * Accepting needs a session of a user with that e-mail, or creates the account with it. At
 * accept time the role is capped again by what the inviter holds then: an invitation never
 * grants more than its inviter has, even after the inviter was demoted.
 */
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { hashPassword } from '../../auth/password.ts';
import { hashToken, newOpaqueToken } from '../../auth/token.ts';
import { type Invitation, invitation, type MembershipRole, membership, user } from '../../db/schema/index.ts';
import { conflict, DomainError, forbidden, notFound } from '../../lib/errors.ts';
import { type Actor, authorize, hasRole, lowerRole } from '../actor.ts';
import type { IdentityContext, RequestMeta } from '../identity/context.ts';
import { startSession } from '../identity/sign-in.ts';
import { assertPasswordAcceptable, emailInUse, findUser, findUserByEmail, normalizeEmail } from '../identity/users.ts';
import type { Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

const alreadyMember = () => conflict('already_member', 'this person is already a member of the organization', 'email');

function isMember(db: Queryable, organizationId: string, email: string): boolean {
  return (
    db
      .select({ id: membership.id })
      .from(membership)
      .innerJoin(user, eq(user.id, membership.userId))
      .where(and(eq(membership.organizationId, organizationId), eq(sql`lower(${user.email})`, email)))
      .get() !== undefined
  );
}

export function createInvitation(ctx: IdentityContext, actor: Actor, input: { organizationId: string; email: string; role: MembershipRole }) {
  const inviterRole = authorize(actor, input.organizationId, 'write', 'organization');
  if (!hasRole(inviterRole, input.role)) throw forbidden(`you cannot invite with a role above your own (${inviterRole})`);
  const email = normalizeEmail(input.email);
  if (isMember(ctx.db, input.organizationId, email)) throw alreadyMember();
  const token = newOpaqueToken('pninv');
  const now = ctx.clock.now();
  const row = ctx.db.transaction((tx) => {
    // One pending invitation per address and organization: a new one replaces the old, which is
    // revoking it, so it needs the role revoking does (an admin cannot turn a pending owner
    // invitation into a member one). An expired one grants nothing and is simply replaced.
    const pending = and(eq(invitation.organizationId, input.organizationId), eq(invitation.email, email), isNull(invitation.acceptedAt));
    const outranking = tx
      .select({ role: invitation.role, expiresAt: invitation.expiresAt })
      .from(invitation)
      .where(pending)
      .all()
      .find((live) => live.expiresAt.getTime() > now.getTime() && !hasRole(inviterRole, live.role));
    if (outranking) throw forbidden(`a pending invitation for ${outranking.role} can only be replaced by someone with that role`);
    tx.delete(invitation).where(pending).run();
    return tx
      .insert(invitation)
      .values({
        organizationId: input.organizationId,
        email,
        role: input.role,
        invitedByUserId: actor.userId,
        tokenHash: hashToken(token),
        expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
      })
      .returning()
      .get();
  });
  return { invitation: row, token };
}

/** Pending (not yet accepted) invitations of an organization; admins and owners. */
export function listInvitations(db: Queryable, actor: Actor, organizationId: string, page: PageRequest): Page<Invitation> {
  authorize(actor, organizationId, 'write', 'organization');
  const { where, fetch, limit } = pageWindow(
    invitation.id,
    page,
    eq(invitation.organizationId, organizationId),
    isNull(invitation.acceptedAt),
  );
  return toPage(db.select().from(invitation).where(where).orderBy(invitation.id).limit(fetch).all(), limit);
}

export function revokeInvitation(db: Queryable, actor: Actor, id: string): void {
  const row = db.select().from(invitation).where(eq(invitation.id, id)).get();
  if (!row) throw notFound('invitation');
  const role = authorize(actor, row.organizationId, 'write', 'invitation');
  if (!hasRole(role, row.role)) throw forbidden(`revoking an invitation for ${row.role} needs that role`);
  db.delete(invitation).where(eq(invitation.id, id)).run();
}

const invitationNotFound = () => notFound('invitation');

/** The live invitation for a token and the role it grants today (capped by the inviter's role). */
function liveInvitation(db: Queryable, token: string, now: Date): { row: Invitation; role: MembershipRole } {
  const row = db
    .select()
    .from(invitation)
    .where(and(eq(invitation.tokenHash, hashToken(token)), isNull(invitation.acceptedAt), gt(invitation.expiresAt, now)))
    .get();
  if (!row) throw invitationNotFound();
  const inviter = db
    .select({ role: membership.role })
    .from(membership)
    .where(and(eq(membership.organizationId, row.organizationId), eq(membership.userId, row.invitedByUserId)))
    .get();
  // An inviter who left the organization can no longer vouch for anyone.
  if (!inviter) throw invitationNotFound();
  return { row, role: lowerRole(row.role, inviter.role) };
}

/** Marks the invitation spent and adds the membership, in the caller's transaction. */
function redeem(tx: Queryable, row: Invitation, role: MembershipRole, userId: string, now: Date): void {
  const spent = tx
    .update(invitation)
    .set({ acceptedAt: now, acceptedByUserId: userId })
    .where(and(eq(invitation.id, row.id), isNull(invitation.acceptedAt)))
    .returning({ id: invitation.id })
    .all();
  if (spent.length !== 1) throw invitationNotFound();
  tx.insert(membership).values({ organizationId: row.organizationId, userId, role }).run();
}

export interface AcceptInput {
  token: string;
  /** Only when not signed in: creates the account for the invited e-mail. */
  password?: string;
  displayName?: string;
}

/**
 * Accepts an invitation. Signed in: the session's user must have the invited e-mail. Not signed
 * in: creates that account with `password` (and signs it in); an existing account must sign in.
 */
export async function acceptInvitation(ctx: IdentityContext, actor: Actor | null, input: AcceptInput, meta: RequestMeta) {
  const now = ctx.clock.now();
  const { row } = liveInvitation(ctx.db, input.token, now);
  if (actor) {
    if (actor.kind !== 'session') throw new DomainError('session_required', 'accept invitations from a signed-in session');
    const me = findUser(ctx.db, actor.userId);
    if (!me || normalizeEmail(me.email) !== row.email) {
      throw new DomainError('invitation_email_mismatch', 'this invitation is for another e-mail address');
    }
    if (isMember(ctx.db, row.organizationId, row.email)) throw alreadyMember();
    ctx.db.transaction((tx) => {
      const live = liveInvitation(tx, input.token, now);
      redeem(tx, live.row, live.role, me.id, now);
    });
    return { organizationId: row.organizationId, session: null };
  }
  if (input.password === undefined) {
    throw new DomainError('unauthenticated', 'sign in as the invited user, or send a password to create the account');
  }
  if (findUserByEmail(ctx.db, row.email)) {
    throw conflict('account_exists', 'an account with this e-mail exists; sign in and accept again');
  }
  assertPasswordAcceptable(input.password, row.email);
  const passwordHash = await hashPassword(input.password);
  const created = ctx.db.transaction((tx) => {
    if (findUserByEmail(tx, row.email)) throw emailInUse();
    const live = liveInvitation(tx, input.token, now);
    const newUser = tx.insert(user).values({ email: live.row.email, passwordHash, displayName: input.displayName ?? null }).returning().get();
    redeem(tx, live.row, live.role, newUser.id, now);
    return newUser;
  });
  return { organizationId: row.organizationId, session: startSession(ctx, created, meta) };
}
