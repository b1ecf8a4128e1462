/**
 * principal — an account identity attachable to services: a host account on servers
 * (kind `system`, provider `server`) or a managed engine user (kind `database`, provider = engine).
 */
import { sql } from 'drizzle-orm';
import { check, index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import {
  enumCheck,
  id,
  isSealedSecret,
  jsonObject,
  jsonObjectCheck,
  matchesIdentifier,
  timestamps,
  uuidV7Check,
} from './columns.ts';
import { managed } from './managed.ts';
import { organization } from './organization.ts';
import { project } from './project.ts';
import { principalKinds, principalProviders } from '../../contract/enums.ts';

export const principal = sqliteTable(
  'principal',
  {
    id: id(),
    /** System: `home`, `uid`/`gid` mirror, `composeAlias`. Managed users: `managedRoot`, `engine`, `databases`. */
    metadata: jsonObject('metadata'),
    /** Host-account settings: `shell`, operator `uid`/`gid` override. */
    options: jsonObject('options'),
    kind: text('kind', { enum: principalKinds }).notNull(),
    provider: text('provider', { enum: principalProviders }).notNull(),
    username: text('username').notNull(),
    /** The login actually created; fixed at create (username, or username_<11 random chars>). */
    appliedUsername: text('applied_username').notNull(),
    /** Sealed `pnsecret` envelope, write-only; null when no engine password exists. */
    password: text('password'),
    /** Home organization (for a managed user: the cluster's home organization). */
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** Optional project scope for compose-declared hosting principals. */
    projectId: text('project_id').references(() => project.id, { onDelete: 'cascade' }),
    /** Optional managed-engine scope for database users. */
    managedId: text('managed_id').references(() => managed.id, { onDelete: 'cascade' }),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('principal', t.id),
    jsonObjectCheck('principal', t.metadata),
    jsonObjectCheck('principal', t.options),
    enumCheck('principal', t.kind, principalKinds),
    enumCheck('principal', t.provider, principalProviders),
    // `server` for host accounts, the engine name for database users.
    check('principal_provider_matches_kind', sql`(${t.kind} = 'system') = (${t.provider} = 'server')`),
    check('principal_username_format', matchesIdentifier(t.username, 255, 'A-Za-z_', 'A-Za-z0-9_-')),
    check('principal_applied_username_format', matchesIdentifier(t.appliedUsername, 255, 'A-Za-z_', 'A-Za-z0-9_-')),
    check('principal_password_is_sealed', isSealedSecret(t.password)),
    index('principal_organization_id_index').on(t.organizationId),
    index('principal_project_id_index').on(t.projectId).where(sql`${t.projectId} IS NOT NULL`),
    index('principal_managed_id_index').on(t.managedId).where(sql`${t.managedId} IS NOT NULL`),
  ],
);

export type Principal = typeof principal.$inferSelect;
export type NewPrincipal = typeof principal.$inferInsert;
