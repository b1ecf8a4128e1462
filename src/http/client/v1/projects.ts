import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Project } from '../../../db/schema/index.ts';
import {
  createProject,
  deleteProject,
  listProjects,
  loadProject,
  PROJECT_TYPES,
  updateProject,
} from '../../../domain/projects/service.ts';
import { serversOfProject } from '../../../domain/ingress/queries.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { writeWithIngress } from './ingress-refresh.ts';
import { timestampsOf } from '../../present.ts';
import {
  Description,
  errorResponses,
  IdParams,
  JsonColumn,
  JsonObject,
  ListQuery,
  listEnvelope,
  NoContent,
  refuseArrays,
  Uuid,
} from '../../schemas.ts';

/** A stored ComposeDocument: `version` 1 with the model in `data` and editor state in `presentation`. */
export const ComposeDocument = refuseArrays(
  v.looseObject({ version: v.literal(1, 'must be 1'), data: v.optional(JsonObject), presentation: v.optional(JsonObject) }),
);

const ProjectOptions = refuseArrays(
  v.strictObject(
    {
      /** The base ComposeDocument. */
      compose: v.optional(ComposeDocument),
      containerNaming: v.optional(v.picklist(['uuid', 'custom'], 'must be uuid or custom')),
      /** Server used by environments without a pin: one of the same organization. */
      defaultServerId: v.optional(v.nullable(Uuid)),
      /** Seed provenance. */
      composeSource: v.optional(JsonObject),
    },
    'unknown option',
  ),
);

/** `type` is docker-compose, managed or template (`system` is platform-only); other keys are free. */
const ProjectMetadata = refuseArrays(
  v.looseObject({ type: v.optional(v.picklist(PROJECT_TYPES, `must be one of ${PROJECT_TYPES.join(', ')}`)) }),
);

const Fields = {
  /** Unique per organization after trimming and case folding; 1-255 characters once trimmed. */
  name: v.optional(v.nullable(v.string())),
  description: v.optional(v.nullable(Description)),
  metadata: v.optional(v.nullable(ProjectMetadata)),
  options: v.optional(v.nullable(ProjectOptions)),
};
const CreateBody = v.strictObject({ workspaceId: Uuid, ...Fields }, 'unknown field');
const UpdateBody = v.strictObject({ workspaceId: v.optional(Uuid), ...Fields }, 'unknown field');

const ProjectSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  workspaceId: v.string(),
  repositoryId: v.nullable(v.string()),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  /** Set on the platform's own projects only; those are read-only to clients. */
  component: v.nullable(v.string()),
  metadata: JsonColumn,
  options: JsonColumn,
  createdAt: v.string(),
  updatedAt: v.string(),
});

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
        body: CreateBody,
        response: { 201: ProjectSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'project_name_in_use', 'has_dependents', 'hostname_in_use', 'compose_invalid', 'validation_failed') },
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
        query: v.object({ workspaceId: v.optional(Uuid), organizationId: v.optional(Uuid), ...ListQuery }),
        response: { 200: listEnvelope(ProjectSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the projects of a workspace or of an organization' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadProject(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ProjectSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a project' },
    })
    .patch('/:id', ({ actor, params, body }) => present(writeWithIngress(deps, (tx) => ({ result: updateProject(tx, actor, params.id, body), servers: serversOfProject(tx, params.id) }))), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: ProjectSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'project_name_in_use', 'has_dependents', 'hostname_in_use', 'compose_invalid', 'validation_failed') },
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
