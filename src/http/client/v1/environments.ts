import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Environment } from '../../../db/schema/index.ts';
import {
  createEnvironment,
  deleteEnvironment,
  listEnvironments,
  loadEnvironment,
  updateEnvironment,
} from '../../../domain/environments/service.ts';
import { serversOfEnvironment } from '../../../domain/ingress/queries.ts';
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
import { ComposeDocument } from './projects.ts';

/** ^[A-Za-z0-9 ._/-]+$, 1-255 characters (also the organization's default environment name). */
export const EnvironmentName = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(255, 'must be at most 255 characters'),
  v.regex(/^[A-Za-z0-9 ._/-]+$/, 'may contain only letters, digits, spaces and . _ / -'),
);

/** `compose` is the overlay document; placement keys are accepted and stripped (placement is `serverId`). */
const EnvironmentOptions = refuseArrays(
  v.strictObject(
    { compose: v.optional(ComposeDocument), placement: v.optional(v.unknown()), serverId: v.optional(v.unknown()) },
    'unknown option',
  ),
);

const Fields = {
  name: v.optional(v.nullable(EnvironmentName)),
  description: v.optional(v.nullable(Description)),
  /** `serverId` and `component` keys are stripped. */
  metadata: v.optional(v.nullable(JsonObject)),
  options: v.optional(v.nullable(EnvironmentOptions)),
  /** Placement pin: a server of the same organization; null clears it (the project default applies). */
  serverId: v.optional(v.nullable(Uuid)),
};
const CreateBody = v.strictObject({ projectId: Uuid, ...Fields }, 'unknown field');
const UpdateBody = v.strictObject(Fields, 'unknown field');

const EnvironmentSchema = v.object({
  id: v.string(),
  projectId: v.string(),
  serverId: v.nullable(v.string()),
  /** Desired generation, raised once per deploy plan; read-only. */
  generation: v.number(),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  metadata: JsonColumn,
  options: JsonColumn,
  createdAt: v.string(),
  updatedAt: v.string(),
});

const present = (row: Environment) => ({
  id: row.id,
  projectId: row.projectId,
  serverId: row.serverId,
  generation: row.generation,
  name: row.name,
  description: row.description,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

export const environmentRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/environments', detail: { tags: ['environments'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createEnvironment(deps.db, actor, body));
      },
      {
        body: CreateBody,
        response: { 201: EnvironmentSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Create an environment in a project' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listEnvironments(deps.db, actor, query.projectId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: v.object({ projectId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(EnvironmentSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the environments of a project' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadEnvironment(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: EnvironmentSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read an environment' },
    })
    .patch('/:id', ({ actor, params, body }) => present(writeWithIngress(deps, (tx) => ({ result: updateEnvironment(tx, actor, params.id, body), servers: serversOfEnvironment(tx, params.id) }))), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: EnvironmentSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: 'Change an environment; serverId sets or (null) clears the placement pin' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteEnvironment(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'validation_failed') },
        detail: { summary: 'Delete an environment (409 has_dependents while it has services)' },
      },
    );
