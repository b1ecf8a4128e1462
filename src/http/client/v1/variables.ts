import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Variable } from '../../../db/schema/index.ts';
import {
  createVariable,
  deleteVariable,
  getVariable,
  listVariables,
  updateVariable,
  type WrittenVariable,
} from '../../../domain/variables/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { Description, EnvironmentKey, errorResponses, IdParams, ListQuery, listEnvelope, NoContent, Uuid } from '../../schemas.ts';

/** 64 KiB of UTF-8. Messages never echo the value: it may be a secret. */
export const MAX_VARIABLE_VALUE_BYTES = 65536;
const Value = v.pipe(v.string('value must be a string'), v.maxBytes(MAX_VARIABLE_VALUE_BYTES, 'value must be at most 64 KiB'));

const ScopeFields = {
  organizationId: v.optional(Uuid),
  workspaceId: v.optional(Uuid),
  projectId: v.optional(Uuid),
  environmentId: v.optional(Uuid),
  serviceId: v.optional(Uuid),
  hostingId: v.optional(Uuid),
  serverId: v.optional(Uuid),
};

const Settings = {
  isLiteral: v.optional(v.boolean()),
  forBuild: v.optional(v.boolean()),
  forRuntime: v.optional(v.boolean()),
  description: v.optional(v.nullable(Description)),
};

const ValueFields = {
  value: v.optional(Value),
  isSecret: v.optional(v.boolean()),
  /** Secrets only: the server picks a random value and returns it once as `generatedValue`. */
  generate: v.optional(v.boolean()),
};

const CreateBody = v.strictObject({ ...ScopeFields, key: EnvironmentKey(255), ...ValueFields, ...Settings }, 'unknown field');
const UpdateBody = v.strictObject({ ...ValueFields, ...Settings }, 'unknown field');
const ListVariablesQuery = v.object({ ...ListQuery, ...ScopeFields });

const VariableSchema = v.object({
  id: v.string(),
  organizationId: v.nullable(v.string()),
  workspaceId: v.nullable(v.string()),
  projectId: v.nullable(v.string()),
  environmentId: v.nullable(v.string()),
  serviceId: v.nullable(v.string()),
  hostingId: v.nullable(v.string()),
  serverId: v.nullable(v.string()),
  /** Set on system-owned rows materialized by a binding (read-only to clients). */
  bindingId: v.nullable(v.string()),
  key: v.string(),
  /** Null for secrets: they are write-only. */
  value: v.nullable(v.string()),
  isSecret: v.boolean(),
  isLiteral: v.boolean(),
  forBuild: v.boolean(),
  forRuntime: v.boolean(),
  description: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
const WrittenVariableSchema = v.object({ ...VariableSchema.entries, generatedValue: v.optional(v.string()) });

const present = (row: Variable) => ({
  id: row.id,
  organizationId: row.organizationId,
  workspaceId: row.workspaceId,
  projectId: row.projectId,
  environmentId: row.environmentId,
  serviceId: row.serviceId,
  hostingId: row.hostingId,
  serverId: row.serverId,
  bindingId: row.bindingId,
  key: row.key,
  value: row.isSecret ? null : row.value,
  isSecret: row.isSecret,
  isLiteral: row.isLiteral,
  forBuild: row.isForBuild,
  forRuntime: row.isForRuntime,
  description: row.description,
  ...timestampsOf(row),
});

/** The one place a generated secret is shown: the answer to the write that generated it. */
const presentWritten = ({ variable, generatedValue }: WrittenVariable) =>
  generatedValue === undefined ? present(variable) : { ...present(variable), generatedValue };

export const variableRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/variables', detail: { tags: ['variables'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return presentWritten(createVariable(deps.db, deps.keyring, actor, body));
      },
      {
        body: CreateBody,
        response: { 201: WrittenVariableSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'variable_key_in_use', 'validation_failed') },
        detail: { summary: 'Create a variable at exactly one scope' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listVariables(deps.db, actor, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: ListVariablesQuery,
        response: { 200: listEnvelope(VariableSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the variables of one scope parent (exactly one scope parameter)' },
      },
    )
    .get('/:id', ({ actor, params }) => present(getVariable(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: VariableSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a variable (secret values read back as null)' },
    })
    .patch('/:id', ({ actor, params, body }) => presentWritten(updateVariable(deps.db, deps.keyring, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: WrittenVariableSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: 'Change a variable; binding-owned variables answer 403' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteVariable(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a variable; binding-owned variables answer 403' },
      },
    );
