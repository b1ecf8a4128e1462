import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { IdParams, listEnvelope } from '../../../contract/common.ts';
import { LocalHostAccessUpdate, Organization, OrganizationListQuery } from '../../../contract/organizations.ts';
import { listOrganizationsAsSuperadmin, setLocalHostAccess } from '../../../domain/organizations/service.ts';
import { adminGuard } from '../../plugins/admin-guard.ts';
import { organizationDerivations } from '../../client/v1/organizations.ts';
import { presenterOf } from '../../present.ts';
import { errorResponses } from '../../schemas.ts';

const present = presenterOf(Organization, organizationDerivations);

/**
 * Every organization, and the superadmin's grant of host access on the control plane's own
 * server (docs/SECURITY.md: host access there is root over Panel itself, so the owner's opt-in
 * alone does not reach it).
 */
export const adminOrganizationRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/organizations' })
    .use(adminGuard(deps))
    .get(
      '/',
      ({ actor, query }) => {
        const page = listOrganizationsAsSuperadmin(deps.db, actor, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: OrganizationListQuery,
        response: { 200: listEnvelope(Organization), ...errorResponses('unauthenticated', 'forbidden', 'validation_failed') },
        detail: { summary: 'List every organization (superadmin)' },
      },
    )
    .patch(
      '/:id',
      ({ actor, params, body }) => {
        const organization = setLocalHostAccess(deps.db, actor, params.id, body.isLocalHostAccessAllowed);
        deps.logger.warn('host access on the local server changed', { userId: actor.userId, organizationId: organization.id, allowed: organization.isLocalHostAccessAllowed });
        return present(organization);
      },
      {
        params: IdParams,
        body: LocalHostAccessUpdate,
        response: { 200: Organization, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: {
          summary: "Allow an organization host access on the control plane's own server (superadmin)",
          description:
            "Host access on the local server needs this grant besides the organization owner's isHostAccessAllowed: without both, Compose documents using host settings are refused for environments and deploys on Panel's own host.",
        },
      },
    );
