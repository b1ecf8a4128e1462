/**
 * A binding's credentials as system-owned variable rows at its service's scope. They are
 * rewritten whenever what they are made of changes (the binding, the principal's password, the
 * cluster's host or port), always inside the caller's transaction.
 */
import { type KeyRing, openSecret, sealSecret } from '../../crypto/index.ts';
import type { Binding, Managed, ManagedEngine, NewVariable, Principal } from '../../db/schema/index.ts';
import { conflict } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { findManaged } from '../managed/queries.ts';
import { findPrincipal } from '../principals/queries.ts';
import { deleteVariablesOfBinding, insertVariables, takenKeys } from '../variables/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { principalPasswordOwner, variableValueOwner } from '../variables/secrets.ts';

type CredentialField = 'host' | 'port' | 'database' | 'user' | 'password' | 'url';

const SECRET_FIELDS: ReadonlySet<CredentialField> = new Set(['password', 'url']);

/** `<PREFIX>_<suffix>` keys, emitted for every binding. */
const PREFIXED_SUFFIXES: readonly [string, CredentialField][] = [
  ['HOST', 'host'],
  ['PORT', 'port'],
  ['NAME', 'database'],
  ['USER', 'user'],
  ['PASSWORD', 'password'],
  ['URL', 'url'],
];

/**
 * Per engine: the URL scheme and the conventional unprefixed keys emitted with
 * `emitEngineDefaults` (the names the engine's own clients and images read). Redis databases are
 * numbered, so its URL carries no database path; the name is still emitted as `<PREFIX>_NAME`.
 */
const ENGINES: Record<ManagedEngine, { scheme: string; urlHasDatabase: boolean; defaults: readonly [string, CredentialField][] }> = {
  postgres: {
    scheme: 'postgres',
    urlHasDatabase: true,
    defaults: [['PGHOST', 'host'], ['PGPORT', 'port'], ['PGDATABASE', 'database'], ['PGUSER', 'user'], ['PGPASSWORD', 'password']],
  },
  mysql: {
    scheme: 'mysql',
    urlHasDatabase: true,
    defaults: [['MYSQL_HOST', 'host'], ['MYSQL_PORT', 'port'], ['MYSQL_DATABASE', 'database'], ['MYSQL_USER', 'user'], ['MYSQL_PASSWORD', 'password']],
  },
  redis: {
    scheme: 'redis',
    urlHasDatabase: false,
    defaults: [['REDIS_HOST', 'host'], ['REDIS_PORT', 'port'], ['REDIS_USERNAME', 'user'], ['REDIS_PASSWORD', 'password'], ['REDIS_URL', 'url']],
  },
  clickhouse: {
    scheme: 'clickhouse',
    urlHasDatabase: true,
    defaults: [['CLICKHOUSE_HOST', 'host'], ['CLICKHOUSE_PORT', 'port'], ['CLICKHOUSE_DB', 'database'], ['CLICKHOUSE_USER', 'user'], ['CLICKHOUSE_PASSWORD', 'password']],
  },
};

export interface CredentialVariable {
  key: string;
  value: string;
  isSecret: boolean;
  /** The binding field that produced the key: the path of a key collision. */
  source: 'keyPrefix' | 'emitEngineDefaults';
}

export interface Credentials {
  engine: ManagedEngine;
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}

/** scheme://user:password@host:port/database, each part URL-encoded; an empty password is left out. */
export function connectionUrl(c: Credentials): string {
  const { scheme, urlHasDatabase } = ENGINES[c.engine];
  const auth = c.password === '' ? encodeURIComponent(c.user) : `${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}`;
  const host = c.host.includes(':') ? `[${c.host}]` : c.host;
  return `${scheme}://${auth}@${host}:${c.port}${urlHasDatabase ? `/${encodeURIComponent(c.database)}` : ''}`;
}

/**
 * The keys a binding emits. A prefix equal to an engine's own (for example MYSQL with mysql)
 * makes some keys coincide; they always carry the same field, so each key is emitted once.
 */
export function credentialVariables(binding: Pick<Binding, 'keyPrefix' | 'isEmitEngineDefaults'>, c: Credentials): CredentialVariable[] {
  const values: Record<CredentialField, string> = {
    host: c.host,
    port: String(c.port),
    database: c.database,
    user: c.user,
    password: c.password,
    url: connectionUrl(c),
  };
  const byKey = new Map<string, CredentialVariable>();
  const emit = (key: string, field: CredentialField, source: CredentialVariable['source']) => {
    if (!byKey.has(key)) byKey.set(key, { key, value: values[field], isSecret: SECRET_FIELDS.has(field), source });
  };
  for (const [suffix, field] of PREFIXED_SUFFIXES) emit(`${binding.keyPrefix}_${suffix}`, field, 'keyPrefix');
  if (binding.isEmitEngineDefaults) for (const [key, field] of ENGINES[c.engine].defaults) emit(key, field, 'emitEngineDefaults');
  return [...byKey.values()];
}

function credentialsOf(keyring: KeyRing, binding: Binding, principal: Principal, cluster: Managed): Credentials {
  if (cluster.host === null || cluster.port === null) {
    throw conflict('managed_not_allocated', 'the database cluster has no host and port yet', 'principalId');
  }
  const password = principal.password === null ? '' : openSecret(keyring, principal.password, principalPasswordOwner(principal.id));
  return { engine: cluster.engine, host: cluster.host, port: cluster.port, database: binding.databaseName, user: principal.appliedUsername, password };
}

/**
 * Replaces the binding's variable rows with freshly computed ones, each secret sealed for its
 * own new row. A key already set on the service by anything else is a 409 naming the key.
 */
export function materializeBinding(tx: Queryable, keyring: KeyRing, binding: Binding): void {
  const principal = findPrincipal(tx, binding.principalId)!;
  const cluster = findManaged(tx, principal.managedId!)!;
  const variables = credentialVariables(binding, credentialsOf(keyring, binding, principal, cluster));
  const scope = { scope: 'serviceId', id: binding.serviceId } as const;
  const [taken] = takenKeys(tx, scope, variables.map((v) => v.key), binding.id);
  if (taken !== undefined) {
    const source = variables.find((v) => v.key === taken)!.source;
    throw conflict('variable_key_in_use', `key ${taken} is already set on this service`, source);
  }
  deleteVariablesOfBinding(tx, binding.id);
  const rows: NewVariable[] = variables.map(({ key, value, isSecret }) => {
    const id = newId();
    return {
      id,
      serviceId: binding.serviceId,
      bindingId: binding.id,
      key,
      value: isSecret ? sealSecret(keyring, value, variableValueOwner(id)) : value,
      isSecret,
      // Passwords may hold `$`: Compose must not interpolate credentials.
      isLiteral: true,
      isForBuild: false,
      isForRuntime: true,
    };
  });
  insertVariables(tx, rows);
}

export function rematerializeBindings(tx: Queryable, keyring: KeyRing, bindings: Binding[]): void {
  for (const binding of bindings) materializeBinding(tx, keyring, binding);
}
