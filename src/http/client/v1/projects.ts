import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { Project } from '../../../db/schema/index.ts';
import { createProject, deleteProject, listProjects, loadProject, updateProject } from '../../../domain/projects/service.ts';
import { routingServersOfProject } from '../../../domain/ingress/queries.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { writeWithIngress } from './ingress-refresh.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Project as ProjectResponse, ProjectCreate, ProjectListQuery, ProjectUpdate } from '../../../contract/projects.ts';

const present = (row: Project) => ({
  id: row.id,
  organizationId: row.organizationId,
  workspaceId: row.workspaceId,
  repositoryId: row.repositoryId,
  name: row.name,
  description: row.description,
  component: row.component,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

export const projectRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/projects', detail: { tags: ['projects'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createProject(deps.db, actor, body));
      },
      {
        body: ProjectCreate,
        response: { 201: ProjectResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'project_name_in_use', 'has_dependents', 'hostname_in_use', 'compose_invalid', 'validation_failed') },
        detail: { summary: 'Create a project (with its first environment) in a workspace' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listProjects(deps.db, actor, query, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: ProjectListQuery,
        response: { 200: listEnvelope(ProjectResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the projects of a workspace or of an organization' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadProject(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ProjectResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a project' },
    })
    .patch('/:id', ({ actor, params, body }) => present(writeWithIngress(deps, (tx) => ({ result: updateProject(tx, actor, params.id, body), servers: routingServersOfProject(tx, params.id) }))), {
      params: IdParams,
      body: ProjectUpdate,
      response: { 200: ProjectResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'project_name_in_use', 'has_dependents', 'hostname_in_use', 'compose_invalid', 'validation_failed') },
      detail: { summary: 'Change a project or move it to another workspace of its organization' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteProject(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'validation_failed') },
        detail: { summary: 'Delete a project (409 has_dependents while it has environments)' },
      },
    );
