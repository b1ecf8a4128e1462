import type { AppDeps } from '../../../deps.ts';
import { LETS_ENCRYPT_DIRECTORY, Organization, OrganizationListQuery, OrganizationUpdate } from '../../../contract/organizations.ts';
import type { Organization as OrganizationRow } from '../../../db/schema/index.ts';
import { ingressServersOf } from '../../../domain/ingress/queries.ts';
import { ACME_FIELDS, listOrganizations, loadOrganization, updateOrganization } from '../../../domain/organizations/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { writeWithIngress } from './ingress-refresh.ts';
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
        writeWithIngress(deps, (tx) => ({
          result: updateOrganization(tx, actor, id, body),
          // The ACME settings decide certificates on every server with an ingress.
          servers: ACME_FIELDS.some((field) => body[field] !== undefined) ? ingressServersOf(tx, id) : [],
        })),
      errors: ['secret_unreadable'],
      summary: 'Rename an organization or change its defaults (admins; host access, deploy hooks and the ACME settings: owners)',
    },
  });
