import type { MembershipRole } from '../db/schema/index.ts';
import { forbidden, notFound } from '../lib/errors.ts';

/**
 * Who is calling, resolved once per request by the client guard (src/http/plugins/guard.ts)
 * before any route runs. Memberships are the only source of organization access: a session
 * sees every organization its user belongs to; an API token sees exactly the one it is bound to,
 * with the role it was given (never more than its creator held).
 */
export interface Actor {
  kind: 'session' | 'token';
  userId: string;
  isSuperadmin: boolean;
  /** The session row id (kind session) or API token row id (kind token). */
  credentialId: string;
  memberships: ReadonlyMap<string, MembershipRole>;
  /**
   * The role the route being served declares (its `role`, shown as `x-panel-role`): `authorize`
   * never asks less, so the declaration is enforced even where a domain function asks only `read`.
   */
  routeRole?: MembershipRole;
}

/** read: any member; write: admins and owners; manage: owners (members and invitations). */
export type Access = 'read' | 'write' | 'manage';

const RANK: Record<MembershipRole, number> = { member: 1, admin: 2, owner: 3 };
const NEEDED: Record<Access, MembershipRole> = { read: 'member', write: 'admin', manage: 'owner' };

export function hasRole(role: MembershipRole, needed: MembershipRole): boolean {
  return RANK[role] >= RANK[needed];
}

/** The weaker of two roles (an API token never grants more than its creator holds). */
export function lowerRole(a: MembershipRole, b: MembershipRole): MembershipRole {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * The one tenancy check. Another organization's resource is indistinguishable from a missing
 * one (404); a member lacking the role gets 403 only for organizations they can see.
 */
export function authorize(actor: Actor, organizationId: string, access: Access, what = 'resource'): MembershipRole {
  const role = actor.memberships.get(organizationId);
  if (role === undefined) throw notFound(what);
  const needed = actor.routeRole && !hasRole(NEEDED[access], actor.routeRole) ? actor.routeRole : NEEDED[access];
  if (!hasRole(role, needed)) throw forbidden(`${access} access needs the ${needed} role`);
  return role;
}

export function canSee(actor: Actor, organizationId: string): boolean {
  return actor.memberships.has(organizationId);
}

/** Organization ids the actor may read, for list queries. */
export function visibleOrganizationIds(actor: Actor): string[] {
  return [...actor.memberships.keys()];
}

/**
 * The one way to load what a caller names: missing, or of another organization, is 404 (the
 * same answer); a role too low for `access` is 403. `organizationOf` finds the row's
 * organization (undefined when it has none the caller could hold).
 */
export function loadFor<T>(
  actor: Actor,
  access: Access,
  what: string,
  row: T | undefined,
  organizationOf: (row: T) => string | undefined = (found) => (found as { organizationId: string }).organizationId,
): T {
  const organizationId = row === undefined ? undefined : organizationOf(row);
  if (row === undefined || organizationId === undefined) throw notFound(what);
  authorize(actor, organizationId, access, what);
  return row;
}

/** A row referenced inside a known organization (a pin, a parent): missing or another organization's is 404. */
export function inOrganization<T extends { organizationId: string }>(row: T | undefined, organizationId: string, what: string): T {
  if (!row || row.organizationId !== organizationId) throw notFound(what);
  return row;
}
