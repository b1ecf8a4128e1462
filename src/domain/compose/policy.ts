/**
 * The Compose policy (src/compose/policy, docs/SECURITY.md) a project's documents are held to:
 * host access when the organization's owner opted in; platform projects (component set, written
 * by Panel only) get the platform allowances besides.
 */
import type { StoredPolicy } from '../../compose/validate.ts';
import type { Project } from '../../db/schema/index.ts';
import { findOrganization } from '../organizations/queries.ts';
import type { Queryable } from '../shared/database.ts';

export const HOST_ACCESS_HINT = 'an owner of the organization can allow host access in its settings';

export function composePolicyOf(db: Queryable, project: Pick<Project, 'organizationId' | 'component'>): StoredPolicy {
  const platform = project.component !== null;
  if (findOrganization(db, project.organizationId)?.isHostAccessAllowed === true) return { hostAccess: true, platform };
  return { hostAccess: false, platform, hostAccessHint: HOST_ACCESS_HINT };
}
