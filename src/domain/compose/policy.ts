/**
 * The Compose policy (src/compose/policy, docs/SECURITY.md) a project's documents are held to:
 * host access when the organization's owner opted in and, on the control plane's own (local)
 * server, a superadmin also granted it to the organization; platform projects (component set,
 * written by Panel only) get the platform allowances besides.
 */
import type { StoredPolicy } from '../../compose/validate.ts';
import type { Project } from '../../db/schema/index.ts';
import { findOrganization } from '../organizations/queries.ts';
import type { Queryable } from '../shared/database.ts';

export const HOST_ACCESS_HINT = 'an owner of the organization can allow host access in its settings';
export const LOCAL_HOST_ACCESS_HINT =
  "this runs on Panel's own server, where host access also needs a superadmin's grant for the organization";

/** `servers`: where the documents run, as far as known (none: the organization's opt-in alone decides). */
export function composePolicyOf(db: Queryable, project: Pick<Project, 'organizationId' | 'component'>, servers: readonly { isLocal: boolean }[] = []): StoredPolicy {
  const platform = project.component !== null;
  const organization = findOrganization(db, project.organizationId);
  if (organization?.isHostAccessAllowed !== true) return { hostAccess: false, platform, hostAccessHint: HOST_ACCESS_HINT };
  if (servers.some((server) => server.isLocal) && !organization.isLocalHostAccessAllowed) {
    return { hostAccess: false, platform, hostAccessHint: LOCAL_HOST_ACCESS_HINT };
  }
  return { hostAccess: true, platform };
}
