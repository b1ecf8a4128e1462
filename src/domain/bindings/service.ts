/**
 * Bindings attach a managed database user to a consuming service in the same organization and
 * materialize its credentials as system-owned variables on that service (./materialize.ts).
 * Their metadata and options are reserved: never written.
 */
import type { KeyRing } from '../../crypto/index.ts';
import type { Binding, Managed } from '../../db/schema/index.ts';
import { conflict, notFound, validationFailed } from '../../lib/errors.ts';
import { type Access, type Actor, authorize, loadFor } from '../actor.ts';
import { databasesOf, findManaged } from '../managed/queries.ts';
import { findPrincipal } from '../principals/queries.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import type { Queryable } from '../shared/database.ts';
import { organizationOfScope } from '../variables/scope.ts';
import { authorizeEdgeFilter, type EdgeListQuery } from '../principals/edges.ts';
import { materializeBinding } from './materialize.ts';
import {
  deleteBindingRow,
  findBinding,
  insertBinding,
  isEngineDefaultsTaken,
  isKeyPrefixTaken,
  listBindingsBy,
  updateBindingRow,
} from './queries.ts';

export const DEFAULT_KEY_PREFIX = 'DATABASE';

export interface BindingSettings {
  databaseName?: string;
  keyPrefix?: string;
  emitEngineDefaults?: boolean;
}

export type CreateBindingInput = BindingSettings & { principalId: string; serviceId: string; databaseName: string };
export type BindingListQuery = EdgeListQuery & PageRequest;

/** The principal must be a database user of a cluster the caller may write. */
function loadBindablePrincipal(db: Queryable, actor: Actor, principalId: string) {
  const principal = findPrincipal(db, principalId);
  if (!principal) throw notFound('principal');
  authorize(actor, principal.organizationId, 'write', 'principal');
  if (principal.kind !== 'database' || principal.managedId === null) {
    throw validationFailed('only a database user of a managed cluster can be bound', 'principalId');
  }
  return { principal, cluster: findManaged(db, principal.managedId)! };
}

function refuseUnknownDatabase(cluster: Managed, databaseName: string): void {
  if (!databasesOf(cluster).includes(databaseName)) {
    throw validationFailed(`the cluster has no database ${databaseName} (see its options.databases)`, 'databaseName');
  }
}

function refuseTakenSlots(db: Queryable, serviceId: string, settings: { keyPrefix: string; isEmitEngineDefaults: boolean }, exceptId?: string): void {
  if (isKeyPrefixTaken(db, serviceId, settings.keyPrefix, exceptId)) {
    throw conflict('key_prefix_in_use', `another binding of this service uses the key prefix ${settings.keyPrefix}`, 'keyPrefix');
  }
  if (settings.isEmitEngineDefaults && isEngineDefaultsTaken(db, serviceId, exceptId)) {
    throw conflict('engine_defaults_in_use', 'another binding of this service already emits the engine default keys', 'emitEngineDefaults');
  }
}

export function createBinding(db: Queryable, keyring: KeyRing, actor: Actor, input: CreateBindingInput): Binding {
  return db.transaction((tx) => {
    const { principal, cluster } = loadBindablePrincipal(tx, actor, input.principalId);
    if (organizationOfScope(tx, { scope: 'serviceId', id: input.serviceId }) !== principal.organizationId) throw notFound('service');
    refuseUnknownDatabase(cluster, input.databaseName);
    const settings = { keyPrefix: input.keyPrefix ?? DEFAULT_KEY_PREFIX, isEmitEngineDefaults: input.emitEngineDefaults ?? true };
    refuseTakenSlots(tx, input.serviceId, settings);
    const binding = insertBinding(tx, { principalId: principal.id, serviceId: input.serviceId, databaseName: input.databaseName, ...settings });
    materializeBinding(tx, keyring, binding);
    return binding;
  });
}

function loadBinding(db: Queryable, actor: Actor, id: string, access: Access): Binding {
  return loadFor(actor, access, 'binding', findBinding(db, id)).binding;
}

export function getBinding(db: Queryable, actor: Actor, id: string): Binding {
  return loadBinding(db, actor, id, 'read');
}

export function listBindings(db: Queryable, actor: Actor, query: BindingListQuery): Page<Binding> {
  const filter = authorizeEdgeFilter(db, actor, query);
  return listBindingsBy(db, filter, query);
}

/** Changing the database, prefix or engine defaults rewrites the binding's variables. */
export function updateBinding(db: Queryable, keyring: KeyRing, actor: Actor, id: string, input: BindingSettings): Binding {
  return db.transaction((tx) => {
    const current = loadBinding(tx, actor, id, 'write');
    const principal = findPrincipal(tx, current.principalId)!;
    const databaseName = input.databaseName ?? current.databaseName;
    if (input.databaseName !== undefined) refuseUnknownDatabase(findManaged(tx, principal.managedId!)!, databaseName);
    const settings = {
      keyPrefix: input.keyPrefix ?? current.keyPrefix,
      isEmitEngineDefaults: input.emitEngineDefaults ?? current.isEmitEngineDefaults,
    };
    refuseTakenSlots(tx, current.serviceId, settings, id);
    const binding = updateBindingRow(tx, id, { databaseName, ...settings });
    materializeBinding(tx, keyring, binding);
    return binding;
  });
}

export function deleteBinding(db: Queryable, actor: Actor, id: string): void {
  db.transaction((tx) => {
    loadBinding(tx, actor, id, 'write');
    deleteBindingRow(tx, id);
  });
}
