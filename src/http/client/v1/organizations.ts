import type { AppDeps } from '../../../app.ts';
import { Organization, OrganizationListQuery, OrganizationUpdate } from '../../../contract/organizations.ts';
import { listOrganizations, loadOrganization, updateOrganization } from '../../../domain/organizations/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

/** Organizations are created at install or sign-up; members read them, admins change them. */
export const organizationRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'organizations',
    schema: Organization,
    guard: clientGuard(deps),
    list: { query: OrganizationListQuery, run: (actor, query) => listOrganizations(deps.db, actor, query), summary: "List the caller's organizations" },
    read: { run: (actor, id) => loadOrganization(deps.db, actor, id), summary: 'Read an organization' },
    update: {
      body: OrganizationUpdate,
      run: (actor, id, body) => updateOrganization(deps.db, actor, id, body),
      summary: 'Rename an organization or change its defaults (admins; host access and deploy hooks: owners)',
    },
  });
