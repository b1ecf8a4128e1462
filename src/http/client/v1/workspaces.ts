import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Workspace } from '../../../db/schema/index.ts';
import {
  createWorkspace,
  deleteWorkspace,
  listWorkspaces,
  loadWorkspace,
  updateWorkspace,
} from '../../../domain/workspaces/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { Description, errorResponses, IdParams, ListQuery, listEnvelope, NoContent, Uuid } from '../../schemas.ts';

/** ^[A-Za-z0-9 ._-]+$, 1-255 characters (workspace and service names). */
export const ResourceName = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(255, 'must be at most 255 characters'),
  v.regex(/^[A-Za-z0-9 ._-]+$/, 'may contain only letters, digits, spaces and . _ -'),
);

const Fields = {
  /** Unique per organization (case-insensitive); 'TurboPanel' is reserved. */
  name: v.optional(v.nullable(ResourceName)),
  description: v.optional(v.nullable(Description)),
};
/** Clients create `user` workspaces only; the `panel` workspace is made at install. */
const CreateBody = v.strictObject(
  { organizationId: Uuid, kind: v.optional(v.literal('user', 'clients create user workspaces only')), ...Fields },
  'unknown field',
);
const UpdateBody = v.strictObject(Fields, 'unknown field');

const WorkspaceSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  kind: v.picklist(['user', 'panel']),
  createdAt: v.string(),
  updatedAt: v.string(),
});

const present = (row: Workspace) => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  description: row.description,
  kind: row.kind,
  ...timestampsOf(row),
});

export const workspaceRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/workspaces', detail: { tags: ['workspaces'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createWorkspace(deps.db, actor, body));
      },
      {
        body: CreateBody,
        response: { 201: WorkspaceSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'name_in_use', 'validation_failed') },
        detail: { summary: 'Create a user workspace in an organization' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listWorkspaces(deps.db, actor, query.organizationId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: v.object({ organizationId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(WorkspaceSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the workspaces of an organization' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadWorkspace(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: WorkspaceSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a workspace' },
    })
    .patch('/:id', ({ actor, params, body }) => present(updateWorkspace(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: WorkspaceSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'name_in_use', 'validation_failed') },
      detail: { summary: 'Rename or describe a workspace (the platform workspace cannot be renamed)' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteWorkspace(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'validation_failed') },
        detail: { summary: 'Delete a workspace (409 has_dependents while it has projects)' },
      },
    );
