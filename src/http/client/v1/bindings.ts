import type { AppDeps } from '../../../deps.ts';
import { Binding, BindingCreate, BindingListQuery, BindingUpdate } from '../../../contract/principals.ts';
import type { Binding as BindingRow } from '../../../db/schema/index.ts';
import { createBinding, deleteBinding, getBinding, listBindings, updateBinding } from '../../../domain/bindings/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

const KEY_ERRORS = ['key_prefix_in_use', 'engine_defaults_in_use', 'variable_key_in_use'] as const;

export const bindingRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'bindings',
    schema: Binding,
    derive: { emitEngineDefaults: (row: BindingRow) => row.isEmitEngineDefaults },
    guard: clientGuard(deps),
    create: {
      body: BindingCreate,
      run: (actor, body) => createBinding(deps.db, deps.keyring, actor, body),
      errors: [...KEY_ERRORS, 'managed_not_allocated'],
      summary: "Bind a managed database user to a service: its credentials become the service's variables",
    },
    list: {
      query: BindingListQuery,
      run: (actor, query) => listBindings(deps.db, actor, query),
      summary: 'List bindings by exactly one of serviceId, principalId',
    },
    read: { run: (actor, id) => getBinding(deps.db, actor, id), summary: 'Read a binding' },
    update: {
      body: BindingUpdate,
      run: (actor, id, body) => updateBinding(deps.db, deps.keyring, actor, id, body),
      errors: [...KEY_ERRORS, 'managed_not_allocated'],
      summary: 'Change database, prefix or engine defaults; the variables are rewritten',
    },
    remove: { run: (actor, id) => deleteBinding(deps.db, actor, id), summary: 'Remove a binding and its variables' },
  });
