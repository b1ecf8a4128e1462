/**
 * Typed calls for principals (host accounts and database users), managed database clusters,
 * tenancies (the host account a service runs as) and bindings (a database user's credentials
 * delivered to a service as read-only variables). Same transport and error shape as api.ts.
 */
import { ApiError, call, type JsonObject, type Page } from './api.ts';

/** The login shells a host account may get: SHELLS of src/domain/principals/accounts.ts (principals-api.test.ts keeps them equal). */
export const SHELLS = ['/usr/sbin/nologin', '/bin/bash', '/bin/sh', '/usr/bin/zsh', '/bin/false'] as const;
export type Shell = (typeof SHELLS)[number];
/** useradd refuses longer names; database users may use 255 characters. */
export const SYSTEM_USERNAME_MAX = 32;
export const ENGINES = ['postgres', 'mysql', 'redis', 'clickhouse'] as const;
export type Engine = (typeof ENGINES)[number];

export interface Principal {
  id: string;
  organizationId: string;
  projectId: string | null;
  managedId: string | null;
  kind: 'system' | 'database';
  provider: 'server' | Engine;
  username: string;
  appliedUsername: string;
  hasPassword: boolean;
  metadata: (JsonObject & { home?: string; databases?: string[]; managedRoot?: boolean }) | null;
  options: { shell?: Shell; uid?: number; gid?: number } | null;
  createdAt: string;
  updatedAt: string;
}

/** A write's answer; `generatedPassword` only when the write asked for one (shown once). */
export type WrittenPrincipal = Principal & { generatedPassword?: string };

export interface PasswordChange {
  password?: string;
  generatePassword?: boolean;
}

export interface ManagedCluster {
  id: string;
  organizationId: string;
  name: string;
  engine: Engine;
  version: string | null;
  host: string | null;
  port: number | null;
  options: { databases: string[] } | null;
  updatedAt: string;
}

export interface ClusterFields {
  name: string;
  version: string | null;
  host?: string;
  port?: number;
  options: { databases: string[] };
}

/** The databases bindings to the cluster may use. */
export const databasesOf = (cluster: ManagedCluster) => cluster.options?.databases ?? [];

export interface Tenancy {
  id: string;
  principalId: string;
  serviceId: string;
}

export interface BindingSettings {
  databaseName?: string;
  keyPrefix?: string;
  emitEngineDefaults?: boolean;
}

export interface Binding {
  id: string;
  principalId: string;
  serviceId: string;
  databaseName: string;
  keyPrefix: string;
  emitEngineDefaults: boolean;
  updatedAt: string;
}

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
  /** `options` replaces the stored object; without `password` the stored one is kept. */
  update: (id: string, changes: PasswordChange & { options?: Principal['options'] }) => call<WrittenPrincipal>('PATCH', `${V1}/principals/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/principals/${id}`),
};

export const managedApi = {
  list: (query: Cursor & { organizationId: string }) => call<Page<ManagedCluster>>('GET', `${V1}/managed`, undefined, query),
  create: (input: ClusterFields & { organizationId: string; engine: Engine }) => call<ManagedCluster>('POST', `${V1}/managed`, input),
  update: (id: string, changes: Partial<ClusterFields>) => call<ManagedCluster>('PATCH', `${V1}/managed/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/managed/${id}`),
};

export const tenancyApi = {
  list: (query: Cursor & { serviceId: string }) => call<Page<Tenancy>>('GET', `${V1}/tenancies`, undefined, query),
  create: (input: { principalId: string; serviceId: string }) => call<Tenancy>('POST', `${V1}/tenancies`, input),
  remove: (id: string) => call<void>('DELETE', `${V1}/tenancies/${id}`),
};

export const bindingApi = {
  list: (query: Cursor & { serviceId: string }) => call<Page<Binding>>('GET', `${V1}/bindings`, undefined, query),
  create: (input: BindingSettings & { principalId: string; serviceId: string; databaseName: string }) => call<Binding>('POST', `${V1}/bindings`, input),
  update: (id: string, changes: BindingSettings) => call<Binding>('PATCH', `${V1}/bindings/${id}`, changes),
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
