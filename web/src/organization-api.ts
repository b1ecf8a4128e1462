/**
 * Typed calls for an organization's settings, members and invitations (client API v1), and the
 * roles' order the pages use to show what the caller may change. Same transport and error shape
 * as api.ts.
 */
import { call, type Organization, type Page } from './api.ts';
import type { MembershipRole as Role } from '../../src/contract/enums.ts';
import type { CreatedInvitation, Invitation, InvitationAccept, InvitationAccepted, Membership } from '../../src/contract/members.ts';
import type { OrganizationUpdate } from '../../src/contract/organizations.ts';
import type { FabricSettingsUpdate, FabricView } from '../../src/contract/fabric.ts';

export type { FabricView, Invitation, Membership, Role };
export type FabricServer = FabricView['servers'][number];
export type OrganizationSettings = Organization;
export type OrganizationChanges = OrganizationUpdate;

/** Lowest first, as the server ranks them. */
export const ROLES: readonly Role[] = ['member', 'admin', 'owner'];

/** Whether `role` is at least `needed` (owner > admin > member), as the server ranks them. */
export const hasRole = (role: Role | undefined, needed: Role): boolean => role !== undefined && ROLES.indexOf(role) >= ROLES.indexOf(needed);

type ListQuery = { organizationId: string; cursor?: string };

export const organizationApi = {
  get: (id: string) => call<OrganizationSettings>('GET', `client/v1/organizations/${id}`),
  update: (id: string, changes: OrganizationChanges) => call<OrganizationSettings>('PATCH', `client/v1/organizations/${id}`, changes),
  fabric: {
    get: (id: string) => call<FabricView>('GET', `client/v1/organizations/${id}/fabric`),
    update: (id: string, changes: FabricSettingsUpdate) => call<FabricView>('PATCH', `client/v1/organizations/${id}/fabric`, changes),
    /** The server's daemon makes a new WireGuard key pair; answers the fabric view. */
    rotateKey: (serverId: string) => call<FabricView>('POST', `client/v1/servers/${serverId}/fabric/rotate-key`),
  },
  memberships: {
    list: (query: ListQuery) => call<Page<Membership>>('GET', 'client/v1/memberships', undefined, query),
    changeRole: (id: string, role: Role) => call<Membership>('PATCH', `client/v1/memberships/${id}`, { role }),
    remove: (id: string) => call<void>('DELETE', `client/v1/memberships/${id}`),
  },
  invitations: {
    list: (query: ListQuery) => call<Page<Invitation>>('GET', 'client/v1/invitations', undefined, query),
    create: (input: { organizationId: string; email: string; role: Role }) => call<CreatedInvitation>('POST', 'client/v1/invitations', input),
    revoke: (id: string) => call<void>('DELETE', `client/v1/invitations/${id}`),
    /** Signed in as the invited e-mail: no password. Signed out: creates that account and signs it in. */
    accept: (input: InvitationAccept) => call<InvitationAccepted>('POST', 'client/v1/invitations/accept', input),
  },
};

/** The admin surface (superadmins): every organization, and host access on this control plane's own server. */
export const adminApi = {
  organizations: (query: { cursor?: string }) => call<Page<OrganizationSettings>>('GET', 'admin/v1/organizations', undefined, query),
  setLocalHostAccess: (id: string, allowed: boolean) => call<OrganizationSettings>('PATCH', `admin/v1/organizations/${id}`, { isLocalHostAccessAllowed: allowed }),
};

/** The link an invitee opens; the token rides in the fragment, which never reaches a server or its logs. */
export const invitationLink = (token: string) => `${location.origin}/invitations/accept#token=${encodeURIComponent(token)}`;

/**
 * Dispatched on window when an organization's name (or the caller's organizations) changed, so
 * the shell's switcher reloads its list.
 */
export const ORGANIZATIONS_CHANGED_EVENT = 'panel:organizations-changed';

export const announceOrganizationsChanged = () => window.dispatchEvent(new Event(ORGANIZATIONS_CHANGED_EVENT));
