/**
 * Principals: host accounts (`system`, provider `server`) and managed database users
 * (`database`, provider = engine). The applied username is fixed at create; the password is
 * write-only and sealed for its row, and a new one rewrites the variables of the user's bindings.
 */
import { type KeyRing, randomSecretValue, sealSecret } from '../../crypto/index.ts';
import type { Managed, Principal, PrincipalKind, PrincipalProvider } from '../../db/schema/index.ts';
import { notFound, validationFailed } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { type Access, type Actor, authorize, loadFor, inOrganization } from '../actor.ts';
import { rematerializeBindings } from '../bindings/materialize.ts';
import { bindingsOfPrincipal } from '../bindings/queries.ts';
import { findManaged } from '../managed/queries.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import type { Queryable } from '../shared/database.ts';
import { organizationOfScope, pickExactlyOne } from '../variables/scope.ts';
import { principalPasswordOwner, resealIfStale } from '../variables/secrets.ts';
import {
  appliedUsernameFor,
  clientMetadataOf,
  databaseMetadata,
  type PrincipalMetadataInput,
  platformMetadataOf,
  type PrincipalOptionsInput,
  storedOptions,
  systemMetadata,
  usernameCap,
} from './accounts.ts';
import { deletePrincipalRow, findPrincipal, insertPrincipal, isRandomizingUsernames, listPrincipalsBy, updatePrincipalRow } from './queries.ts';

/** `generatePassword` picks a random password, returned once as `generatedPassword`. */
export interface PasswordInput {
  password?: string | null;
  generatePassword?: boolean;
}

export type CreatePrincipalInput = PasswordInput & {
  organizationId: string;
  kind: PrincipalKind;
  provider?: PrincipalProvider;
  username: string;
  projectId?: string;
  managedId?: string;
  metadata?: PrincipalMetadataInput | null;
  options?: PrincipalOptionsInput | null;
};

export type UpdatePrincipalInput = PasswordInput & {
  metadata?: PrincipalMetadataInput | null;
  options?: PrincipalOptionsInput | null;
};

export type PrincipalListQuery = Partial<Record<'organizationId' | 'projectId' | 'managedId', string>> & PageRequest;

export interface WrittenPrincipal {
  principal: Principal;
  generatedPassword?: string;
}

function providerFor(kind: PrincipalKind, provider: PrincipalProvider | undefined): PrincipalProvider {
  if (kind === 'system') {
    if (provider !== undefined && provider !== 'server') throw validationFailed('system principals have provider server', 'provider');
    return 'server';
  }
  if (provider === undefined || provider === 'server') {
    throw validationFailed('database principals need the engine as provider: postgres, mysql, redis or clickhouse', 'provider');
  }
  return provider;
}

/** The password's plaintext when the write sets one; null clears it; undefined leaves it. */
function newPassword(input: PasswordInput): { plaintext: string | null | undefined; generatedPassword?: string } {
  if (!input.generatePassword) return { plaintext: input.password };
  if (input.password !== undefined) throw validationFailed('send either password or generatePassword, not both', 'password');
  const generatedPassword = randomSecretValue();
  return { plaintext: generatedPassword, generatedPassword };
}

/** A project or cluster scope must be in the principal's organization; anything else is 404. */
function loadScopes(db: Queryable, input: CreatePrincipalInput, provider: PrincipalProvider): Managed | undefined {
  if (input.projectId !== undefined && organizationOfScope(db, { scope: 'projectId', id: input.projectId }) !== input.organizationId) {
    throw notFound('project');
  }
  if (input.managedId === undefined) return undefined;
  if (input.kind === 'system') throw validationFailed('only database principals belong to a managed cluster', 'managedId');
  const cluster = inOrganization(findManaged(db, input.managedId), input.organizationId, 'managed cluster');
  if (cluster.engine !== provider) throw validationFailed(`the cluster runs ${cluster.engine}, not ${provider}`, 'provider');
  return cluster;
}

export function createPrincipal(db: Queryable, keyring: KeyRing, actor: Actor, input: CreatePrincipalInput): WrittenPrincipal {
  authorize(actor, input.organizationId, 'write', 'organization');
  const provider = providerFor(input.kind, input.provider);
  const cap = usernameCap(input.kind);
  if (input.username.length > cap) throw validationFailed(`${input.kind} usernames are at most ${cap} characters`, 'username');
  const cluster = loadScopes(db, input, provider);
  const { plaintext, generatedPassword } = newPassword(input);

  const id = newId();
  const appliedUsername = appliedUsernameFor(input.username, isRandomizingUsernames(db, input.organizationId), cap);
  const options = storedOptions(input.kind, input.options);
  const metadata =
    input.kind === 'system'
      ? systemMetadata(appliedUsername, input.metadata ?? {}, input.options ?? {})
      : databaseMetadata(provider, input.metadata ?? {}, cluster);
  const principal = insertPrincipal(db, {
    id,
    organizationId: input.organizationId,
    projectId: input.projectId,
    managedId: input.managedId,
    kind: input.kind,
    provider,
    username: input.username,
    appliedUsername,
    password: plaintext ? sealSecret(keyring, plaintext, principalPasswordOwner(id)) : null,
    metadata,
    options,
  });
  return { principal, generatedPassword };
}

function loadPrincipal(db: Queryable, actor: Actor, id: string, access: Access): Principal {
  return loadFor(actor, access, 'principal', findPrincipal(db, id));
}

export function getPrincipal(db: Queryable, actor: Actor, id: string): Principal {
  return loadPrincipal(db, actor, id, 'read');
}

export function listPrincipals(db: Queryable, actor: Actor, query: PrincipalListQuery): Page<Principal> {
  const filter = pickExactlyOne(query, ['organizationId', 'projectId', 'managedId'] as const, 'organizationId');
  const organizationId =
    filter.name === 'organizationId'
      ? filter.id
      : filter.name === 'projectId'
        ? organizationOfScope(db, { scope: 'projectId', id: filter.id })
        : findManaged(db, filter.id)?.organizationId;
  if (organizationId === undefined) throw notFound(filter.name === 'projectId' ? 'project' : 'managed cluster');
  authorize(actor, organizationId, 'read', 'organization');
  return listPrincipalsBy(db, filter, query);
}

/** A new password is sealed for the row, null clears it, and an untouched one is re-sealed lazily. */
function nextPassword(keyring: KeyRing, row: Principal, plaintext: string | null | undefined): string | null {
  const owner = principalPasswordOwner(row.id);
  if (plaintext === null) return null;
  if (plaintext !== undefined) return sealSecret(keyring, plaintext, owner);
  return row.password === null ? null : resealIfStale(keyring, row.password, owner);
}

/**
 * `metadata` and `options` replace the stored objects (system uid/gid mirrors follow options;
 * keys the platform wrote are kept).
 * A new or cleared password rewrites the user's binding variables.
 */
export function updatePrincipal(db: Queryable, keyring: KeyRing, actor: Actor, id: string, input: UpdatePrincipalInput): WrittenPrincipal {
  return db.transaction((tx) => {
    const row = loadPrincipal(tx, actor, id, 'write');
    const { plaintext, generatedPassword } = newPassword(input);
    const password = nextPassword(keyring, row, plaintext);
    const metadataInput = input.metadata === undefined ? clientMetadataOf(row) : (input.metadata ?? {});
    const optionsInput = input.options === undefined ? row.options : input.options;
    const options = storedOptions(row.kind, optionsInput as PrincipalOptionsInput | null);
    const metadata = {
      ...platformMetadataOf(row),
      ...(row.kind === 'system'
        ? systemMetadata(row.appliedUsername, metadataInput, (options ?? {}) as PrincipalOptionsInput)
        : databaseMetadata(row.provider, metadataInput, row.managedId ? findManaged(tx, row.managedId) : undefined)),
    };
    const principal = updatePrincipalRow(tx, id, { password, metadata, options });
    if (plaintext !== undefined) rematerializeBindings(tx, keyring, bindingsOfPrincipal(tx, id));
    return { principal, generatedPassword };
  });
}

/** Its tenancies and bindings go with it (cascade), and the bindings' variables with them. */
export function deletePrincipal(db: Queryable, actor: Actor, id: string): void {
  db.transaction((tx) => {
    loadPrincipal(tx, actor, id, 'write');
    deletePrincipalRow(tx, id);
  });
}
