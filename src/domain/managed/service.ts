/**
 * Managed database clusters: where consumers connect (host, port) and which databases bindings
 * may reference (options.databases). A change of address rewrites every binding's variables;
 * a database still bound cannot be removed from the list.
 */
import type { KeyRing } from '../../crypto/index.ts';
import type { JsonObject, Managed, ManagedEngine } from '../../db/schema/index.ts';
import { conflict, validationFailed } from '../../lib/errors.ts';
import { type Access, type Actor, authorize, loadFor } from '../actor.ts';
import { rematerializeBindings } from '../bindings/materialize.ts';
import { bindingsOfManaged } from '../bindings/queries.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import type { Queryable } from '../shared/database.ts';
import { databasesOf, deleteManagedRow, findManaged, insertManaged, listManagedOfOrganization, updateManagedRow } from './queries.ts';

export interface ManagedOptionsInput {
  databases?: string[];
}

export interface CreateManagedInput {
  organizationId: string;
  name: string;
  engine: ManagedEngine;
  version?: string | null;
  host?: string | null;
  port?: number | null;
  options?: ManagedOptionsInput | null;
}

/** The engine is fixed at create (its users are principals of that provider); host and port, once set, stay set. */
export interface UpdateManagedInput {
  name?: string;
  version?: string | null;
  host?: string;
  port?: number;
  options?: ManagedOptionsInput | null;
}

function storedOptions(options: ManagedOptionsInput | null | undefined): JsonObject | null | undefined {
  if (!options) return options;
  const databases = options.databases ?? [];
  const duplicate = databases.findIndex((name, index) => databases.indexOf(name) !== index);
  if (duplicate !== -1) throw validationFailed(`database ${databases[duplicate]} is listed twice`, `options.databases.${duplicate}`);
  return { databases };
}

function loadManaged(db: Queryable, actor: Actor, id: string, access: Access): Managed {
  return loadFor(actor, access, 'managed cluster', findManaged(db, id));
}

export function createManaged(db: Queryable, actor: Actor, input: CreateManagedInput): Managed {
  authorize(actor, input.organizationId, 'write', 'organization');
  const { options, ...fields } = input;
  return insertManaged(db, { ...fields, options: storedOptions(options) });
}

export function getManaged(db: Queryable, actor: Actor, id: string): Managed {
  return loadManaged(db, actor, id, 'read');
}

export function listManaged(db: Queryable, actor: Actor, query: { organizationId: string } & PageRequest): Page<Managed> {
  authorize(actor, query.organizationId, 'read', 'organization');
  return listManagedOfOrganization(db, query.organizationId, query);
}

export function updateManaged(db: Queryable, keyring: KeyRing, actor: Actor, id: string, input: UpdateManagedInput): Managed {
  return db.transaction((tx) => {
    const current = loadManaged(tx, actor, id, 'write');
    const { options, ...fields } = input;
    const nextOptions = storedOptions(options);
    const bindings = bindingsOfManaged(tx, id);
    if (nextOptions !== undefined) {
      const kept = nextOptions === null ? [] : databasesOf({ options: nextOptions });
      const dropped = bindings.find((binding) => !kept.includes(binding.databaseName));
      if (dropped) throw conflict('database_in_use', `database ${dropped.databaseName} is still bound to a service`, 'options.databases');
    }
    const changes = { ...fields, options: nextOptions };
    if (Object.values(changes).every((value) => value === undefined)) return current;
    const updated = updateManagedRow(tx, id, changes);
    if (updated.host !== current.host || updated.port !== current.port) rematerializeBindings(tx, keyring, bindings);
    return updated;
  });
}

/** Its database users go with it, and with them their bindings and the bindings' variables. */
export function deleteManaged(db: Queryable, actor: Actor, id: string): void {
  db.transaction((tx) => {
    loadManaged(tx, actor, id, 'write');
    deleteManagedRow(tx, id);
  });
}
