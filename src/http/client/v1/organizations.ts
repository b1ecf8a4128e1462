import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Organization } from '../../../db/schema/index.ts';
import { getOrganization, listOrganizations } from '../../../domain/organizations/queries.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses, IdParams } from '../../schemas.ts';

const OrganizationSchema = v.object({
  id: v.string(),
  name: v.string(),
  defaultEnvironmentName: v.string(),
  isRandomizeUsernames: v.boolean(),
  createdAt: v.string(),
  updatedAt: v.string(),
});

const present = (row: Organization) => ({
  id: row.id,
  name: row.name,
  defaultEnvironmentName: row.defaultEnvironmentName,
  isRandomizeUsernames: row.isRandomizeUsernames,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const organizationRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/organizations', detail: { tags: ['organizations'] } })
    .use(clientGuard(deps))
    .get('/', ({ actor }) => ({ data: listOrganizations(deps.db, actor).map(present), nextCursor: null }), {
      response: { 200: v.object({ data: v.array(OrganizationSchema), nextCursor: v.nullable(v.string()) }), ...errorResponses(401) },
      detail: { summary: "List the caller's organizations" },
    })
    .get('/:id', ({ actor, params }) => present(getOrganization(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: OrganizationSchema, ...errorResponses(401, 404, 422) },
      detail: { summary: 'Read an organization' },
    });
