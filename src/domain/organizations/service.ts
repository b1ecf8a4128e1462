import { CertificateError, chainPem, readCertificateChain } from '../../crypto/certificates.ts';
import type { Db } from '../../db/client.ts';
import { validationFailed } from '../../lib/errors.ts';
import { membership, type Organization, organization, workspace } from '../../db/schema/index.ts';
import { type Actor, authorize, visibleOrganizationIds } from '../actor.ts';
import { forbidden, notFound } from '../../lib/errors.ts';
import type { Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import { findOrganization, listAllOrganizations, listOrganizationsIn, updateOrganizationRow } from './queries.ts';

/** The machine workspace every organization gets; its name is reserved for users. */
export const PANEL_WORKSPACE_NAME = 'TurboPanel';
export const DEFAULT_WORKSPACE_NAME = 'Default';

/**
 * A new organization with its `panel` workspace, a default user workspace, and its owner.
 * One transaction: an organization never exists half-made.
 */
export function createOrganization(db: Db, input: { name: string; ownerUserId: string }) {
  return db.transaction((tx) => {
    const org = tx.insert(organization).values({ name: input.name }).returning().get();
    tx.insert(workspace).values({ organizationId: org.id, name: PANEL_WORKSPACE_NAME, kind: 'panel', description: 'Platform stack' }).run();
    tx.insert(workspace).values({ organizationId: org.id, name: DEFAULT_WORKSPACE_NAME, kind: 'user' }).run();
    tx.insert(membership).values({ organizationId: org.id, userId: input.ownerUserId, role: 'owner' }).run();
    return org;
  });
}

export function listOrganizations(db: Queryable, actor: Actor, page: PageRequest): Page<Organization> {
  return listOrganizationsIn(db, visibleOrganizationIds(actor), page);
}

/** Every organization, for a superadmin (the admin surface). */
export function listOrganizationsAsSuperadmin(db: Queryable, actor: Actor, page: PageRequest): Page<Organization> {
  if (!actor.isSuperadmin) throw forbidden('this needs a superadmin');
  return listAllOrganizations(db, page);
}

/**
 * A superadmin's grant of host access on the control plane's own server to an organization. It
 * adds to the owner's opt-in (isHostAccessAllowed), never replaces it: both are needed there.
 */
export function setLocalHostAccess(db: Queryable, actor: Actor, id: string, allowed: boolean): Organization {
  if (!actor.isSuperadmin) throw forbidden('this needs a superadmin');
  if (!findOrganization(db, id)) throw notFound('organization');
  return updateOrganizationRow(db, id, { isLocalHostAccessAllowed: allowed });
}

/** Reads an organization the actor belongs to; any other is 404. */
export function loadOrganization(db: Queryable, actor: Actor, id: string, access: 'read' | 'write' = 'read'): Organization {
  authorize(actor, id, access, 'organization');
  return findOrganization(db, id)!;
}

export interface OrganizationChanges {
  name?: string;
  defaultEnvironmentName?: string;
  isRandomizeUsernames?: boolean;
  /** Compose host access (privileged, host paths, the Docker socket): root on every server. */
  isHostAccessAllowed?: boolean;
  /** Deploy hooks in service options: commands run at deploy. */
  isDeployHooksEnabled?: boolean;
  isAcmeEnabled?: boolean;
  acmeEmail?: string | null;
  acmeDirectoryUrl?: string | null;
  acmeDirectoryRoots?: string | null;
}

/** Where the organization's certificates come from: owners decide. */
export const ACME_FIELDS = ['isAcmeEnabled', 'acmeEmail', 'acmeDirectoryUrl', 'acmeDirectoryRoots'] as const;

/** The roots must be readable certificates, stored re-encoded; anything else is 422 on the field. */
function directoryRoots(pem: string): string {
  try {
    return chainPem(readCertificateChain(pem));
  } catch (error) {
    if (error instanceof CertificateError) throw validationFailed(`acmeDirectoryRoots ${error.message}`, 'acmeDirectoryRoots');
    throw error;
  }
}

/**
 * Admins rename the organization and set the defaults new projects and principals use. The two
 * opt-ins that hand out power over the servers (host access, deploy hooks) and the ACME settings
 * (which CA the organization's certificates come from) are owners' only.
 */
export function updateOrganization(db: Queryable, actor: Actor, id: string, changes: OrganizationChanges): Organization {
  const touchesOptIns = changes.isHostAccessAllowed !== undefined || changes.isDeployHooksEnabled !== undefined || ACME_FIELDS.some((field) => changes[field] !== undefined);
  const current = loadOrganization(db, actor, id, 'write');
  if (touchesOptIns) authorize(actor, id, 'manage', 'organization');
  if (Object.values(changes).every((value) => value === undefined)) return current;
  const acmeDirectoryRoots = changes.acmeDirectoryRoots ? directoryRoots(changes.acmeDirectoryRoots) : changes.acmeDirectoryRoots;
  return updateOrganizationRow(db, id, { ...changes, acmeDirectoryRoots });
}
