import type { AppDeps } from '../../../deps.ts';
import { LETS_ENCRYPT_DIRECTORY, Organization, OrganizationListQuery, OrganizationUpdate } from '../../../contract/organizations.ts';
import type { Organization as OrganizationRow } from '../../../db/schema/index.ts';
import { changeOrganization } from '../../../domain/ingress/writes.ts';
import { listOrganizations, loadOrganization } from '../../../domain/organizations/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

/** The organization's answer fields the row holds otherwise (also the admin surface's). */
export const organizationDerivations = { acmeDirectoryUrl: (row: OrganizationRow) => row.acmeDirectoryUrl ?? LETS_ENCRYPT_DIRECTORY };

/** Organizations are created at install or sign-up; members read them, admins change them. */
export const organizationRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'organizations',
    schema: Organization,
    derive: organizationDerivations,
    guard: clientGuard(deps),
    list: { query: OrganizationListQuery, run: (actor, query) => listOrganizations(deps.db, actor, query), summary: "List the caller's organizations" },
    read: { run: (actor, id) => loadOrganization(deps.db, actor, id), summary: 'Read an organization' },
    update: {
      body: OrganizationUpdate,
      run: (actor, id, body) =>
        changeOrganization({ ...deps, notify: deps.hub.notifier }, actor, id, body, { bytes: deps.config.logRetentionBytes, days: deps.config.logRetentionDays }),
      errors: ['secret_unreadable'],
      summary: 'Rename an organization or change its defaults (admins; host access, deploy hooks and the ACME settings: owners)',
      description: "Log bounds (`logRetentionBytes`, `logRetentionDays`) may be lowered below the operator's (PANEL_LOG_RETENTION_BYTES, _DAYS), never raised above; null returns to them.",
    },
  });
