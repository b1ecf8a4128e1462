import { Elysia } from 'elysia';
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
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Workspace as WorkspaceResponse, WorkspaceCreate, WorkspaceListQuery, WorkspaceUpdate } from '../../../contract/workspaces.ts';

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
        body: WorkspaceCreate,
        response: { 201: WorkspaceResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'name_in_use', 'validation_failed') },
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
        query: WorkspaceListQuery,
        response: { 200: listEnvelope(WorkspaceResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the workspaces of an organization' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadWorkspace(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: WorkspaceResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a workspace' },
    })
    .patch('/:id', ({ actor, params, body }) => present(updateWorkspace(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: WorkspaceUpdate,
      response: { 200: WorkspaceResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'name_in_use', 'validation_failed') },
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
