/**
 * Organization membership: only owners manage members (list, change role, remove). The last
 * owner can be neither demoted nor removed, so an organization always has someone in charge.
 */
import { and, count, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { apiToken, type MembershipRole, membership, user } from '../../db/schema/index.ts';
import { conflict } from '../../lib/errors.ts';
import { type Actor, authorize, loadFor } from '../actor.ts';
import type { Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export interface MemberRow {
  id: string;
  organizationId: string;
  userId: string;
  email: string;
  displayName: string | null;
  role: MembershipRole;
  createdAt: Date;
  updatedAt: Date;
}

const memberColumns = {
  id: membership.id,
  organizationId: membership.organizationId,
  userId: membership.userId,
  email: user.email,
  displayName: user.displayName,
  role: membership.role,
  createdAt: membership.createdAt,
  updatedAt: membership.updatedAt,
};

export function listMemberships(db: Queryable, actor: Actor, organizationId: string, page: PageRequest): Page<MemberRow> {
  authorize(actor, organizationId, 'manage', 'organization');
  const { where, fetch, limit } = pageWindow(membership.id, page, eq(membership.organizationId, organizationId));
  const rows = db.select(memberColumns).from(membership).innerJoin(user, eq(user.id, membership.userId)).where(where).orderBy(membership.id).limit(fetch).all();
  return toPage(rows, limit);
}

function loadMembership(db: Queryable, actor: Actor, id: string) {
  return loadFor(actor, 'manage', 'membership', db.select().from(membership).where(eq(membership.id, id)).get());
}

function assertAnotherOwner(db: Queryable, organizationId: string, exceptMembershipId: string): void {
  const others = db
    .select({ n: count() })
    .from(membership)
    .where(and(eq(membership.organizationId, organizationId), eq(membership.role, 'owner'), ne(membership.id, exceptMembershipId)))
    .get()!.n;
  if (others === 0) throw conflict('last_owner', 'an organization needs at least one owner; make someone else owner first');
}

function memberRow(db: Queryable, id: string): MemberRow {
  return db.select(memberColumns).from(membership).innerJoin(user, eq(user.id, membership.userId)).where(eq(membership.id, id)).get()!;
}

export function changeMembershipRole(db: Db, actor: Actor, id: string, role: MembershipRole): MemberRow {
  return db.transaction((tx) => {
    const row = loadMembership(tx, actor, id);
    if (row.role === 'owner' && role !== 'owner') assertAnotherOwner(tx, row.organizationId, row.id);
    if (row.role !== role) tx.update(membership).set({ role }).where(eq(membership.id, id)).run();
    return memberRow(tx, id);
  });
}

/** Removes a member; their API tokens for the organization go with them. */
export function removeMembership(db: Db, actor: Actor, id: string): void {
  db.transaction((tx) => {
    const row = loadMembership(tx, actor, id);
    if (row.role === 'owner') assertAnotherOwner(tx, row.organizationId, row.id);
    tx.delete(apiToken).where(and(eq(apiToken.organizationId, row.organizationId), eq(apiToken.userId, row.userId))).run();
    tx.delete(membership).where(eq(membership.id, id)).run();
  });
}
