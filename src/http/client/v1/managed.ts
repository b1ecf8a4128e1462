import type { AppDeps } from '../../../deps.ts';
import { Managed, ManagedCreate, ManagedListQuery, ManagedUpdate } from '../../../contract/principals.ts';
import type { Managed as ManagedRow } from '../../../db/schema/index.ts';
import { databasesOf } from '../../../domain/managed/queries.ts';
import { createManaged, deleteManaged, getManaged, listManaged, updateManaged } from '../../../domain/managed/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

export const managedRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'managed',
    schema: Managed,
    derive: { options: (row: ManagedRow) => (row.options === null ? null : { databases: databasesOf(row) }) },
    guard: clientGuard(deps),
    create: { body: ManagedCreate, run: (actor, body) => createManaged(deps.db, actor, body), summary: 'Register a managed database cluster' },
    list: {
      query: ManagedListQuery,
      run: (actor, query) => listManaged(deps.db, actor, query),
      summary: "List an organization's managed database clusters",
    },
    read: { run: (actor, id) => getManaged(deps.db, actor, id), summary: 'Read a managed database cluster' },
    update: {
      body: ManagedUpdate,
      run: (actor, id, body) => updateManaged(deps.db, deps.keyring, actor, id, body),
      errors: ['database_in_use'],
      summary: 'Change a managed database cluster; a new host or port rewrites its bindings',
    },
    remove: {
      run: (actor, id) => deleteManaged(deps.db, actor, id),
      summary: 'Delete a managed database cluster with its database users and their bindings',
    },
  });
