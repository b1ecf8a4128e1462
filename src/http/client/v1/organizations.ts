import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Organization } from '../../../db/schema/index.ts';
import { listOrganizations, loadOrganization, updateOrganization } from '../../../domain/organizations/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, ListQuery, listEnvelope } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { LETS_ENCRYPT_DIRECTORY, Organization as OrganizationResponse, OrganizationUpdate } from '../../../contract/organizations.ts';
import { ACME_FIELDS } from '../../../domain/organizations/service.ts';
import { ingressServersOf } from '../../../domain/ingress/queries.ts';
import { writeWithIngress } from './ingress-refresh.ts';

const present = (row: Organization) => ({
  id: row.id,
  name: row.name,
  defaultEnvironmentName: row.defaultEnvironmentName,
  isRandomizeUsernames: row.isRandomizeUsernames,
  isDeployHooksEnabled: row.isDeployHooksEnabled,
  isHostAccessAllowed: row.isHostAccessAllowed,
  isAcmeEnabled: row.isAcmeEnabled,
  acmeEmail: row.acmeEmail,
  acmeDirectoryUrl: row.acmeDirectoryUrl ?? LETS_ENCRYPT_DIRECTORY,
  acmeDirectoryRoots: row.acmeDirectoryRoots,
  ...timestampsOf(row),
});

export const organizationRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/organizations', detail: { tags: ['organizations'] } })
    .use(clientGuard(deps))
    .get(
      '/',
      ({ actor, query }) => {
        const page = listOrganizations(deps.db, actor, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: v.object(ListQuery),
        response: { 200: listEnvelope(OrganizationResponse), ...errorResponses('unauthenticated', 'validation_failed') },
        detail: { summary: "List the caller's organizations" },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadOrganization(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: OrganizationResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read an organization' },
    })
    .patch(
      '/:id',
      ({ actor, params, body }) =>
        present(
          writeWithIngress(deps, (tx) => ({
            result: updateOrganization(tx, actor, params.id, body),
            // The ACME settings decide certificates on every server with an ingress.
            servers: ACME_FIELDS.some((field) => body[field] !== undefined) ? ingressServersOf(tx, params.id) : [],
          })),
        ),
      {
        params: IdParams,
        body: OrganizationUpdate,
        response: { 200: OrganizationResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'secret_unreadable', 'validation_failed') },
        detail: { summary: 'Rename an organization or change its defaults (admins); its opt-ins and ACME settings (owners)' },
      },
    );
