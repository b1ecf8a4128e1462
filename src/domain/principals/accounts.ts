/**
 * Account rules of principals: username caps, the randomized applied username, and the
 * metadata/options each kind keeps. Host accounts (`system`) carry a home under /srv/users and a
 * shell from a closed list; database users carry their engine and databases.
 */
import { randomBytes } from 'node:crypto';
import type { JsonObject, Managed, Principal, PrincipalKind, PrincipalProvider } from '../../db/schema/index.ts';
import { type Shell, SYSTEM_USERNAME_MAX } from '../../contract/enums.ts';
import { USERNAME_MAX } from '../../contract/principals.ts';
import { validationFailed } from '../../lib/errors.ts';
import { databasesOf } from '../managed/queries.ts';

export const RANDOM_SUFFIX_LENGTH = 11;
export const HOME_ROOT = '/srv/users/';

/** The default keeps interactive logins closed. */
export const DEFAULT_SHELL: Shell = '/usr/sbin/nologin';

/** What a client may write in `metadata`; `uid`/`gid` (system) and `engine` (database) are derived. */
export interface PrincipalMetadataInput {
  home?: string;
  composeAlias?: string;
  databases?: string[];
}

export interface PrincipalOptionsInput {
  shell?: Shell;
  uid?: number;
  gid?: number;
}

export const usernameCap = (kind: PrincipalKind) => (kind === 'system' ? SYSTEM_USERNAME_MAX : USERNAME_MAX);

const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Largest multiple of the alphabet size below 256: bytes above it are dropped to keep the draw uniform. */
const UNBIASED_LIMIT = 256 - (256 % SUFFIX_ALPHABET.length);

export function randomSuffix(length = RANDOM_SUFFIX_LENGTH): string {
  let suffix = '';
  while (suffix.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT && suffix.length < length) suffix += SUFFIX_ALPHABET[byte % SUFFIX_ALPHABET.length];
    }
  }
  return suffix;
}

/**
 * The login actually created: the username, or `<username>_<11 random [a-z0-9]>` when the
 * organization randomizes names, with the username shortened so the whole fits `cap`.
 */
export function appliedUsernameFor(username: string, randomize: boolean, cap: number): string {
  if (!randomize) return username;
  return `${username.slice(0, cap - RANDOM_SUFFIX_LENGTH - 1)}_${randomSuffix()}`;
}

/** Metadata keys the API writes: the client's own and the ones derived from them. */
const API_METADATA_KEYS = ['home', 'composeAlias', 'databases', 'uid', 'gid', 'engine'];

/** The client-written part of stored metadata (what a PATCH without `metadata` keeps). */
export function clientMetadataOf(row: Pick<Principal, 'metadata'>): PrincipalMetadataInput {
  const { home, composeAlias, databases } = (row.metadata ?? {}) as PrincipalMetadataInput;
  return { home, composeAlias, databases };
}

/** Keys the platform wrote (such as `managedRoot` on a cluster's root user): a client PATCH keeps them. */
export function platformMetadataOf(row: Pick<Principal, 'metadata'>): JsonObject {
  return Object.fromEntries(Object.entries(row.metadata ?? {}).filter(([key]) => !API_METADATA_KEYS.includes(key)));
}

const present = (object: Record<string, unknown>): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));

function refuseKeys(metadata: PrincipalMetadataInput, keys: (keyof PrincipalMetadataInput)[], kind: PrincipalKind): void {
  const key = keys.find((name) => metadata[name] !== undefined);
  if (key) throw validationFailed(`${kind} principals have no metadata.${key}`, `metadata.${key}`);
}

/** System: home (default /srv/users/<applied username>), composeAlias, and uid/gid mirrored from options. */
export function systemMetadata(appliedUsername: string, metadata: PrincipalMetadataInput, options: PrincipalOptionsInput): JsonObject {
  refuseKeys(metadata, ['databases'], 'system');
  return present({ home: metadata.home ?? `${HOME_ROOT}${appliedUsername}`, composeAlias: metadata.composeAlias, uid: options.uid, gid: options.gid });
}

/** Database: the engine, and the databases the user is meant for (each one of the cluster's). */
export function databaseMetadata(provider: PrincipalProvider, metadata: PrincipalMetadataInput, cluster: Managed | undefined): JsonObject {
  refuseKeys(metadata, ['home', 'composeAlias'], 'database');
  if (cluster && metadata.databases) {
    const known = databasesOf(cluster);
    const index = metadata.databases.findIndex((name) => !known.includes(name));
    if (index !== -1) throw validationFailed(`the cluster has no database ${metadata.databases[index]}`, `metadata.databases.${index}`);
  }
  return present({ engine: provider, databases: metadata.databases });
}

/** System accounts always store their shell; database users have no host-account options. */
export function storedOptions(kind: PrincipalKind, options: PrincipalOptionsInput | null | undefined): JsonObject | null {
  if (kind === 'database') {
    if (options) throw validationFailed('database principals have no host-account options', 'options');
    return null;
  }
  return present({ shell: options?.shell ?? DEFAULT_SHELL, uid: options?.uid, gid: options?.gid });
}
