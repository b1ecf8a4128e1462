/**
 * Typed calls for principals (host accounts and database users), managed database clusters,
 * tenancies (the host account a service runs as) and bindings (a database user's credentials
 * delivered to a service as read-only variables). Same transport and error shape as api.ts.
 */
import { ApiError, call, type Page } from './api.ts';
import { managedEngines, type ManagedEngine, type Shell, shells, SYSTEM_USERNAME_MAX } from '../../src/contract/enums.ts';
import type { Binding, BindingCreate, BindingUpdate, Managed, ManagedCreate, ManagedUpdate, Principal, Tenancy, WrittenPrincipal } from '../../src/contract/principals.ts';

export type { Binding, Principal, Shell, Tenancy, WrittenPrincipal };
export type ManagedCluster = Managed;
export type BindingSettings = BindingUpdate;
export type Engine = ManagedEngine;
/** What the cluster form sends on create (with organizationId and engine) and update. */
export type ClusterFields = Omit<ManagedCreate, 'organizationId' | 'engine'> & ManagedUpdate;
/** The login shells and engines the API accepts, and the host account username cap. */
export { managedEngines as ENGINES, shells as SHELLS, SYSTEM_USERNAME_MAX };

export interface PasswordChange {
  password?: string;
  generatePassword?: boolean;
}

/** The databases bindings to the cluster may use. */
export const databasesOf = (cluster: ManagedCluster) => cluster.options?.databases ?? [];

const V1 = 'client/v1';
type Cursor = { cursor?: string };

export const principalApi = {
  list: (query: Cursor & ({ organizationId: string } | { managedId: string })) => call<Page<Principal>>('GET', `${V1}/principals`, undefined, query),
  createSystem: (input: { organizationId: string; username: string; options: { shell: Shell; uid?: number; gid?: number } } & PasswordChange) =>
    call<WrittenPrincipal>('POST', `${V1}/principals`, { kind: 'system', ...input }),
  createDatabaseUser: (cluster: ManagedCluster, input: { username: string; metadata: { databases: string[] } } & PasswordChange) =>
    call<WrittenPrincipal>('POST', `${V1}/principals`, {
      kind: 'database',
      provider: cluster.engine,
      organizationId: cluster.organizationId,
      managedId: cluster.id,
      ...input,
    }),
  /** `options` and `metadata` replace the stored objects; without `password` the stored one is kept. */
  update: (id: string, changes: PasswordChange & { options?: Principal['options']; metadata?: { databases: string[] } }) =>
    call<WrittenPrincipal>('PATCH', `${V1}/principals/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/principals/${id}`),
};

export const managedApi = {
  list: (query: Cursor & { organizationId: string }) => call<Page<ManagedCluster>>('GET', `${V1}/managed`, undefined, query),
  get: (id: string) => call<ManagedCluster>('GET', `${V1}/managed/${id}`),
  create: (input: ManagedCreate) => call<ManagedCluster>('POST', `${V1}/managed`, input),
  update: (id: string, changes: ManagedUpdate) => call<ManagedCluster>('PATCH', `${V1}/managed/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/managed/${id}`),
};

export const tenancyApi = {
  list: (query: Cursor & { serviceId: string }) => call<Page<Tenancy>>('GET', `${V1}/tenancies`, undefined, query),
  create: (input: { principalId: string; serviceId: string }) => call<Tenancy>('POST', `${V1}/tenancies`, input),
  remove: (id: string) => call<void>('DELETE', `${V1}/tenancies/${id}`),
};

export const bindingApi = {
  list: (query: Cursor & { serviceId: string }) => call<Page<Binding>>('GET', `${V1}/bindings`, undefined, query),
  create: (input: BindingCreate) => call<Binding>('POST', `${V1}/bindings`, input),
  update: (id: string, changes: BindingUpdate) => call<Binding>('PATCH', `${V1}/bindings/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/bindings/${id}`),
};

/** Every page of a list, for pickers that must offer all of it. */
export async function allPages<T>(load: (cursor?: string) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await load(cursor);
    items.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/**
 * An optional whole-number field: undefined when empty. Anything else than digits is refused
 * here, at the field, in the API's own error shape (a NaN would reach the API as null).
 */
export function optionalInteger(text: string | undefined, field: string): number | undefined {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '') return undefined;
  if (!/^\d+$/.test(trimmed)) throw new ApiError(422, 'validation_failed', 'must be a whole number', field);
  return Number(trimmed);
}

/** Names typed into one field, separated by spaces or commas. */
export const namesIn = (text: string | undefined) => (text ?? '').split(/[\s,]+/).filter(Boolean);

/**
 * The API names a list entry (`options.databases.1`); the form has one field for the list, so
 * the error moves there, naming the entry it is about.
 */
export function onListField(error: unknown, prefix: string, field: string, entries: string[]): never {
  if (!(error instanceof ApiError) || !error.path?.startsWith(prefix)) throw error;
  const index = Number(error.path.slice(prefix.length + 1));
  const entry = Number.isInteger(index) && error.path !== prefix ? entries[index] : undefined;
  throw new ApiError(error.status, error.code, entry === undefined ? error.message : `${entry}: ${error.message}`, field, error.requestId);
}
