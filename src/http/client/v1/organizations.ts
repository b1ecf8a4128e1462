import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Organization } from '../../../db/schema/index.ts';
import { listOrganizations, loadOrganization, updateOrganization } from '../../../domain/organizations/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { errorResponses, IdParams, ListQuery, listEnvelope } from '../../schemas.ts';
import { EnvironmentName } from './environments.ts';

const OrganizationSchema = v.object({
  id: v.string(),
  name: v.string(),
  defaultEnvironmentName: v.string(),
  isRandomizeUsernames: v.boolean(),
  isDeployHooksEnabled: v.boolean(),
  isHostAccessAllowed: v.boolean(),
  createdAt: v.string(),
  updatedAt: v.string(),
});

const UpdateBody = v.strictObject(
  {
    name: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'))),
    /** Name of the first environment of every new project. */
    defaultEnvironmentName: v.optional(EnvironmentName),
    /** New principals get `<username>_<11 random characters>` as their applied username. */
    isRandomizeUsernames: v.optional(v.boolean()),
    /** Owners only: lets Compose documents use host access (privileged, host paths, the Docker socket). */
    isHostAccessAllowed: v.optional(v.boolean()),
    /** Owners only: allows deploy hooks in service options. */
    isDeployHooksEnabled: v.optional(v.boolean()),
  },
  'unknown field',
);

const present = (row: Organization) => ({
  id: row.id,
  name: row.name,
  defaultEnvironmentName: row.defaultEnvironmentName,
  isRandomizeUsernames: row.isRandomizeUsernames,
  isDeployHooksEnabled: row.isDeployHooksEnabled,
  isHostAccessAllowed: row.isHostAccessAllowed,
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
        response: { 200: listEnvelope(OrganizationSchema), ...errorResponses('unauthenticated', 'validation_failed') },
        detail: { summary: "List the caller's organizations" },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadOrganization(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: OrganizationSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read an organization' },
    })
    .patch('/:id', ({ actor, params, body }) => present(updateOrganization(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: OrganizationSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: 'Rename an organization or change its defaults (admins)' },
    });
