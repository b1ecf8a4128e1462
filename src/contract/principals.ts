/**
 * Principals (host accounts and managed database users), managed database clusters, tenancies
 * (the host account a service runs as) and bindings (a database user's credentials delivered to
 * a service as read-only variables).
 */
import * as v from 'valibot';
import { EnvironmentKey, ListQuery, strict, Text, Timestamps, Uuid } from './common.ts';
import { managedEngines, principalKinds, principalProviders, shells } from './enums.ts';

export const USERNAME_MAX = 255;
/** Operator uid/gid overrides: above the system range, below the nobody/dynamic range. */
export const ID_MIN = 1000;
export const ID_MAX = 60000;

const Username = v.pipe(
  Text(USERNAME_MAX),
  v.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must start with a letter or _ and contain only letters, digits, _ and -'),
);
/** Messages never echo the password. */
const Password = v.pipe(v.string('password must be a string'), v.minLength(1, 'password must not be empty'), v.maxLength(1024, 'password must be at most 1024 characters'));
/** An absolute path under /srv/users, without `.` or `..` segments. */
const Home = v.pipe(
  v.string(),
  v.maxLength(1024, 'must be at most 1024 characters'),
  v.regex(/^\/srv\/users(\/(?!\.\.?(\/|$))[A-Za-z0-9._-]+)+$/, 'must be a path under /srv/users/ without . or .. segments'),
);
const AccountId = v.pipe(v.number(), v.integer('must be an integer'), v.minValue(ID_MIN, `must be ${ID_MIN} to ${ID_MAX}`), v.maxValue(ID_MAX, `must be ${ID_MIN} to ${ID_MAX}`));
const DatabaseName = EnvironmentKey(63);

const PrincipalMetadata = strict(
  { home: v.optional(Home), composeAlias: v.optional(Username), databases: v.optional(v.array(DatabaseName)) },
  'field (uid, gid and engine are set by Panel)',
);
const PrincipalOptions = strict({ shell: v.optional(v.picklist(shells, `must be one of ${shells.join(', ')}`)), uid: v.optional(AccountId), gid: v.optional(AccountId) });

const WritableFields = {
  generatePassword: v.optional(v.boolean()),
  metadata: v.optional(v.nullable(PrincipalMetadata)),
  options: v.optional(v.nullable(PrincipalOptions)),
};
export const PrincipalCreate = strict({
  organizationId: Uuid,
  kind: v.picklist(principalKinds, `must be one of ${principalKinds.join(', ')}`),
  provider: v.optional(v.picklist(principalProviders, `must be one of ${principalProviders.join(', ')}`)),
  username: Username,
  password: v.optional(Password),
  projectId: v.optional(Uuid),
  managedId: v.optional(Uuid),
  ...WritableFields,
});
export type PrincipalCreate = v.InferInput<typeof PrincipalCreate>;
/** username and applied username are fixed at create; kind, provider and scopes too. */
export const PrincipalUpdate = strict({ password: v.optional(v.nullable(Password)), ...WritableFields });
export type PrincipalUpdate = v.InferInput<typeof PrincipalUpdate>;
export const PrincipalListQuery = v.object({ ...ListQuery, organizationId: v.optional(Uuid), projectId: v.optional(Uuid), managedId: v.optional(Uuid) });

export const Principal = v.object({
  id: v.string(),
  organizationId: v.string(),
  projectId: v.nullable(v.string()),
  managedId: v.nullable(v.string()),
  kind: v.picklist(principalKinds),
  provider: v.picklist(principalProviders),
  username: v.string(),
  appliedUsername: v.string(),
  /** Write-only: always null. */
  password: v.null(),
  hasPassword: v.boolean(),
  metadata: v.nullable(
    v.looseObject({
      home: v.optional(v.string()),
      composeAlias: v.optional(v.string()),
      databases: v.optional(v.array(v.string())),
      managedRoot: v.optional(v.boolean()),
      engine: v.optional(v.string()),
      uid: v.optional(v.number()),
      gid: v.optional(v.number()),
    }),
  ),
  options: v.nullable(v.looseObject({ shell: v.optional(v.picklist(shells)), uid: v.optional(v.number()), gid: v.optional(v.number()) })),
  ...Timestamps,
});
export type Principal = v.InferOutput<typeof Principal>;
/** The answer to a write: a generated password is shown here, once. */
export const WrittenPrincipal = v.object({ ...Principal.entries, generatedPassword: v.optional(v.string()) });
export type WrittenPrincipal = v.InferOutput<typeof WrittenPrincipal>;

const ClusterVersion = Text(64);
/** A DNS name or an IP address (IPv6 without brackets). */
const Host = v.pipe(Text(253), v.regex(/^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|[0-9A-Fa-f:.]+)$/, 'must be a host name or an IP address'));
const ClusterPort = v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be 1 to 65535'), v.maxValue(65535, 'must be 1 to 65535'));
const ClusterOptions = strict({ databases: v.optional(v.array(DatabaseName)) });

export const ManagedCreate = strict({
  organizationId: Uuid,
  name: Text(255),
  engine: v.picklist(managedEngines, `must be one of ${managedEngines.join(', ')}`),
  version: v.optional(v.nullable(ClusterVersion)),
  host: v.optional(v.nullable(Host)),
  port: v.optional(v.nullable(ClusterPort)),
  options: v.optional(v.nullable(ClusterOptions)),
});
export type ManagedCreate = v.InferInput<typeof ManagedCreate>;
export const ManagedUpdate = strict({
  name: v.optional(Text(255)),
  version: v.optional(v.nullable(ClusterVersion)),
  host: v.optional(Host),
  port: v.optional(ClusterPort),
  options: v.optional(v.nullable(ClusterOptions)),
});
export type ManagedUpdate = v.InferInput<typeof ManagedUpdate>;
export const ManagedListQuery = v.object({ organizationId: Uuid, ...ListQuery });

export const Managed = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  engine: v.picklist(managedEngines),
  version: v.nullable(v.string()),
  host: v.nullable(v.string()),
  port: v.nullable(v.number()),
  options: v.nullable(v.object({ databases: v.array(v.string()) })),
  ...Timestamps,
});
export type Managed = v.InferOutput<typeof Managed>;

export const TenancyCreate = strict({ principalId: Uuid, serviceId: Uuid });
export const TenancyListQuery = v.object({ ...ListQuery, serviceId: v.optional(Uuid), principalId: v.optional(Uuid) });
export const Tenancy = v.object({ id: v.string(), principalId: v.string(), serviceId: v.string(), ...Timestamps });
export type Tenancy = v.InferOutput<typeof Tenancy>;

const BindingSettings = {
  /** One of the cluster's options.databases. */
  databaseName: DatabaseName,
  /** Prefix of the emitted keys (<PREFIX>_HOST, _PORT, _NAME, _USER, _PASSWORD, _URL); default DATABASE. */
  keyPrefix: v.optional(EnvironmentKey(64)),
  /** Also emit the engine's conventional keys (PGHOST, MYSQL_HOST, ...); default true, one binding per service. */
  emitEngineDefaults: v.optional(v.boolean()),
};
export const BindingCreate = strict({ principalId: Uuid, serviceId: Uuid, ...BindingSettings });
export type BindingCreate = v.InferInput<typeof BindingCreate>;
export const BindingUpdate = strict({ ...BindingSettings, databaseName: v.optional(DatabaseName) });
export type BindingUpdate = v.InferInput<typeof BindingUpdate>;
export const BindingListQuery = TenancyListQuery;

export const Binding = v.object({
  id: v.string(),
  principalId: v.string(),
  serviceId: v.string(),
  databaseName: v.string(),
  keyPrefix: v.string(),
  emitEngineDefaults: v.boolean(),
  ...Timestamps,
});
export type Binding = v.InferOutput<typeof Binding>;
