import { Elysia } from 'elysia';
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
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Variable as VariableResponse, VariableCreate, VariableListQuery, VariableUpdate, WrittenVariable as WrittenVariableResponse } from '../../../contract/variables.ts';

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
        body: VariableCreate,
        response: { 201: WrittenVariableResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'variable_key_in_use', 'validation_failed') },
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
        query: VariableListQuery,
        response: { 200: listEnvelope(VariableResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the variables of one scope parent (exactly one scope parameter)' },
      },
    )
    .get('/:id', ({ actor, params }) => present(getVariable(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: VariableResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a variable (secret values read back as null)' },
    })
    .patch('/:id', ({ actor, params, body }) => presentWritten(updateVariable(deps.db, deps.keyring, actor, params.id, body)), {
      params: IdParams,
      body: VariableUpdate,
      response: { 200: WrittenVariableResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
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
