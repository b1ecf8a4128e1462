/**
 * Typed calls for an organization's settings, members and invitations (client API v1), and the
 * roles' order the pages use to show what the caller may change. Same transport and error shape
 * as api.ts.
 */
import { call, type Organization, type Page, type SessionSummary, type User } from './api.ts';

export type Role = SessionSummary['memberships'][number]['role'];

export const ROLES: readonly Role[] = ['member', 'admin', 'owner'];

/** Whether `role` is at least `needed` (owner > admin > member), as the server ranks them. */
export const hasRole = (role: Role | undefined, needed: Role): boolean => role !== undefined && ROLES.indexOf(role) >= ROLES.indexOf(needed);

export interface OrganizationSettings extends Organization {
  isRandomizeUsernames: boolean;
  /** Owners only: Compose host access (privileged, host paths, the Docker socket). */
  isHostAccessAllowed: boolean;
  /** Owners only: deploy hooks in service options. */
  isDeployHooksEnabled: boolean;
}

export type OrganizationChanges = Partial<Pick<OrganizationSettings, 'name' | 'defaultEnvironmentName' | 'isRandomizeUsernames' | 'isHostAccessAllowed' | 'isDeployHooksEnabled'>>;

export interface Membership {
  id: string;
  organizationId: string;
  userId: string;
  email: string;
  displayName: string | null;
  role: Role;
  createdAt: string;
  updatedAt: string;
}

export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  role: Role;
  invitedByUserId: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
}

type ListQuery = { organizationId: string; cursor?: string };

export const organizationApi = {
  get: (id: string) => call<OrganizationSettings>('GET', `client/v1/organizations/${id}`),
  update: (id: string, changes: OrganizationChanges) => call<OrganizationSettings>('PATCH', `client/v1/organizations/${id}`, changes),
  memberships: {
    list: (query: ListQuery) => call<Page<Membership>>('GET', 'client/v1/memberships', undefined, query),
    changeRole: (id: string, role: Role) => call<Membership>('PATCH', `client/v1/memberships/${id}`, { role }),
    remove: (id: string) => call<void>('DELETE', `client/v1/memberships/${id}`),
  },
  invitations: {
    list: (query: ListQuery) => call<Page<Invitation>>('GET', 'client/v1/invitations', undefined, query),
    create: (input: { organizationId: string; email: string; role: Role }) => call<Invitation & { token: string }>('POST', 'client/v1/invitations', input),
    revoke: (id: string) => call<void>('DELETE', `client/v1/invitations/${id}`),
    /** Signed in as the invited e-mail: no password. Signed out: creates that account and signs it in. */
    accept: (input: { token: string; password?: string; displayName?: string }) =>
      call<{ organizationId: string; user: User | null }>('POST', 'client/v1/invitations/accept', input),
  },
};

/** The link an invitee opens; the token rides in the fragment, which never reaches a server or its logs. */
export const invitationLink = (token: string) => `${location.origin}/invitations/accept#token=${encodeURIComponent(token)}`;

/**
 * Dispatched on window when an organization's name (or the caller's organizations) changed, so
 * the shell's switcher reloads its list.
 */
export const ORGANIZATIONS_CHANGED_EVENT = 'panel:organizations-changed';

export const announceOrganizationsChanged = () => window.dispatchEvent(new Event(ORGANIZATIONS_CHANGED_EVENT));
