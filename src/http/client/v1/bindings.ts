import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { Binding } from '../../../db/schema/index.ts';
import { createBinding, deleteBinding, getBinding, listBindings, updateBinding } from '../../../domain/bindings/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Binding as BindingResponse, BindingCreate, BindingListQuery, BindingUpdate } from '../../../contract/principals.ts';

const present = (row: Binding) => ({
  id: row.id,
  principalId: row.principalId,
  serviceId: row.serviceId,
  databaseName: row.databaseName,
  keyPrefix: row.keyPrefix,
  emitEngineDefaults: row.isEmitEngineDefaults,
  ...timestampsOf(row),
});

export const bindingRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/bindings', detail: { tags: ['bindings'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createBinding(deps.db, deps.keyring, actor, body));
      },
      {
        body: BindingCreate,
        response: { 201: BindingResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'key_prefix_in_use', 'engine_defaults_in_use', 'variable_key_in_use', 'managed_not_allocated', 'validation_failed') },
        detail: { summary: "Bind a managed database user to a service: its credentials become the service's variables" },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listBindings(deps.db, actor, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: BindingListQuery,
        response: { 200: listEnvelope(BindingResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List bindings by exactly one of serviceId, principalId' },
      },
    )
    .get('/:id', ({ actor, params }) => present(getBinding(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: BindingResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a binding' },
    })
    .patch('/:id', ({ actor, params, body }) => present(updateBinding(deps.db, deps.keyring, actor, params.id, body)), {
      params: IdParams,
      body: BindingUpdate,
      response: { 200: BindingResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'key_prefix_in_use', 'engine_defaults_in_use', 'variable_key_in_use', 'validation_failed') },
      detail: { summary: 'Change database, prefix or engine defaults; the variables are rewritten' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteBinding(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Remove a binding and its variables' },
      },
    );
