/**
 * Variables: one key/value at exactly one of seven scopes. Secret values are sealed as pnsecret
 * envelopes bound to their own row and never leave the server; a generated secret is returned
 * once, by the write that created it. Rows owned by a binding are read-only to clients.
 */
import { type KeyRing, randomSecretValue, sealSecret } from '../../crypto/index.ts';
import type { NewVariable, Variable } from '../../db/schema/index.ts';
import { conflict, forbidden, notFound, validationFailed } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { type Access, type Actor, authorize, loadFor } from '../actor.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import {
  deleteVariableRow,
  findVariable,
  insertVariables,
  listVariablesOfScope,
  takenKeys,
  updateVariableRow,
} from './queries.ts';
import type { Queryable } from '../shared/database.ts';
import { organizationOfScope, pickScope, type ScopeFields, type ScopeRef, scopeLabel } from './scope.ts';
import { resealIfStale, variableValueOwner } from './secrets.ts';

export interface VariableSettings {
  isLiteral?: boolean;
  forBuild?: boolean;
  forRuntime?: boolean;
  description?: string | null;
}

/** `generate` (secrets only) replaces `value` with a random one, returned once as `generatedValue`. */
export interface VariableValueInput {
  value?: string;
  isSecret?: boolean;
  generate?: boolean;
}

export type CreateVariableInput = ScopeFields & VariableSettings & VariableValueInput & { key: string };
export type UpdateVariableInput = VariableSettings & VariableValueInput;

export interface WrittenVariable {
  variable: Variable;
  generatedValue?: string;
}

/** Resolves a scope parent's organization and checks access; a missing or foreign parent is 404. */
function authorizeScope(db: Queryable, actor: Actor, ref: ScopeRef, access: Access): void {
  const organizationId = organizationOfScope(db, ref);
  if (organizationId === undefined) throw notFound(scopeLabel(ref.scope));
  authorize(actor, organizationId, access, scopeLabel(ref.scope));
}

function loadVariable(db: Queryable, actor: Actor, id: string, access: Access): Variable {
  return loadFor(actor, access, 'variable', findVariable(db, id), (row) => organizationOfScope(db, pickScope(row)));
}

/** Binding-materialized rows change only with their binding. */
function loadClientWritable(db: Queryable, actor: Actor, id: string): Variable {
  const row = loadVariable(db, actor, id, 'write');
  if (row.bindingId !== null) throw forbidden('this variable is managed by a database binding; change the binding instead');
  return row;
}

function refuseGenerateConflicts(input: VariableValueInput, isSecret: boolean): void {
  if (!input.generate) return;
  if (!isSecret) throw validationFailed('generate needs isSecret: true', 'generate');
  if (input.value !== undefined) throw validationFailed('send either value or generate, not both', 'value');
}

function settingsColumns(input: VariableSettings): Partial<NewVariable> {
  return {
    isLiteral: input.isLiteral,
    isForBuild: input.forBuild,
    isForRuntime: input.forRuntime,
    description: input.description,
  };
}

export function createVariable(db: Queryable, keyring: KeyRing, actor: Actor, input: CreateVariableInput): WrittenVariable {
  const ref = pickScope(input);
  authorizeScope(db, actor, ref, 'write');
  const isSecret = input.isSecret ?? false;
  refuseGenerateConflicts(input, isSecret);

  const id = newId();
  const generatedValue = input.generate ? randomSecretValue() : undefined;
  const plaintext = generatedValue ?? input.value ?? '';
  const value = isSecret ? sealSecret(keyring, plaintext, variableValueOwner(id)) : plaintext;

  return db.transaction((tx) => {
    if (takenKeys(tx, ref, [input.key]).length > 0) {
      throw conflict('variable_key_in_use', `key ${input.key} is already set at this ${scopeLabel(ref.scope)}`, 'key');
    }
    const [variable] = insertVariables(tx, [{ id, [ref.scope]: ref.id, key: input.key, value, isSecret, ...settingsColumns(input) }]);
    return { variable: variable!, generatedValue };
  });
}

export function getVariable(db: Queryable, actor: Actor, id: string): Variable {
  return loadVariable(db, actor, id, 'read');
}

export function listVariables(db: Queryable, actor: Actor, query: ScopeFields & PageRequest): Page<Variable> {
  const ref = pickScope(query);
  authorizeScope(db, actor, ref, 'read');
  return listVariablesOfScope(db, ref, query);
}

/**
 * The stored value after a PATCH. A secret without a new value is re-sealed lazily when its key
 * is no longer the current one; turning a secret back into plaintext needs a new value.
 */
function nextStoredValue(keyring: KeyRing, row: Variable, input: UpdateVariableInput, isSecret: boolean, generatedValue?: string): string {
  const owner = variableValueOwner(row.id);
  const plaintext = generatedValue ?? input.value;
  if (plaintext !== undefined) return isSecret ? sealSecret(keyring, plaintext, owner) : plaintext;
  if (row.isSecret && !isSecret) throw validationFailed('a new value is required when isSecret becomes false', 'value');
  if (!row.isSecret && isSecret) return sealSecret(keyring, row.value, owner);
  return row.isSecret ? resealIfStale(keyring, row.value, owner) : row.value;
}

export function updateVariable(db: Queryable, keyring: KeyRing, actor: Actor, id: string, input: UpdateVariableInput): WrittenVariable {
  return db.transaction((tx) => {
    const row = loadClientWritable(tx, actor, id);
    const isSecret = input.isSecret ?? row.isSecret;
    refuseGenerateConflicts(input, isSecret);
    const generatedValue = input.generate ? randomSecretValue() : undefined;
    const value = nextStoredValue(keyring, row, input, isSecret, generatedValue);
    return { variable: updateVariableRow(tx, id, { value, isSecret, ...settingsColumns(input) }), generatedValue };
  });
}

export function deleteVariable(db: Queryable, actor: Actor, id: string): void {
  db.transaction((tx) => {
    loadClientWritable(tx, actor, id);
    deleteVariableRow(tx, id);
  });
}
