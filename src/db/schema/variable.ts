/**
 * variable — one configuration key/value at exactly one scope (organization, workspace, project,
 * environment, service, hosting, or server). No metadata/options (spec).
 *
 * Rows with binding_id set are system-owned (materialized by a binding; client writes get 403).
 */
import { sql } from 'drizzle-orm';
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import {
  boolean,
  booleanCheck,
  exactlyOneNonNull,
  id,
  isSealedSecret,
  matchesEnvironmentKey,
  timestamps,
  uuidV7Check,
} from './columns.ts';
import { binding } from './binding.ts';
import { environment } from './environment.ts';
import { hosting } from './hosting.ts';
import { organization } from './organization.ts';
import { project } from './project.ts';
import { server } from './server.ts';
import { service } from './service.ts';
import { workspace } from './workspace.ts';

export const variable = sqliteTable(
  'variable',
  {
    id: id(),
    // Scope parents: exactly one is set; each cascades.
    organizationId: text('organization_id').references(() => organization.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspace.id, { onDelete: 'cascade' }),
    projectId: text('project_id').references(() => project.id, { onDelete: 'cascade' }),
    environmentId: text('environment_id').references(() => environment.id, { onDelete: 'cascade' }),
    serviceId: text('service_id').references(() => service.id, { onDelete: 'cascade' }),
    hostingId: text('hosting_id').references(() => hosting.id, { onDelete: 'cascade' }),
    /** Server scope: resolved per server at deploy, outside the inheritance chain. */
    serverId: text('server_id').references(() => server.id, { onDelete: 'cascade' }),
    bindingId: text('binding_id').references(() => binding.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** Plaintext for non-secrets; a sealed `pnsecret` envelope for secrets. */
    value: text('value').notNull().default(''),
    isSecret: boolean('is_secret').notNull().default(false),
    /** API `isLiteral`: escape `$` so Compose does not interpolate. */
    isLiteral: boolean('is_literal').notNull().default(false),
    /** API `forBuild`: inject into build.args. */
    isForBuild: boolean('is_for_build').notNull().default(false),
    /** API `forRuntime`: inject into the container environment. */
    isForRuntime: boolean('is_for_runtime').notNull().default(true),
    description: text('description'),
    ...timestamps(),
  },
  (t) => {
    const scopes = [
      t.organizationId,
      t.workspaceId,
      t.projectId,
      t.environmentId,
      t.serviceId,
      t.hostingId,
      t.serverId,
    ] as const;
    return [
      uuidV7Check('variable', t.id),
      check('variable_exactly_one_scope', exactlyOneNonNull(scopes)),
      check('variable_key_format', matchesEnvironmentKey(t.key, 255)),
      // Defence in depth: a secret never lands in the database as plaintext.
      check('variable_secret_value_is_sealed', sql`${t.isSecret} = 0 OR ${isSealedSecret(t.value)}`),
      booleanCheck('variable', t.isSecret),
      booleanCheck('variable', t.isLiteral),
      booleanCheck('variable', t.isForBuild),
      booleanCheck('variable', t.isForRuntime),
      // Key unique per scope parent: one partial index per scope column. Each also serves its
      // column's foreign key (SQLite knows `col = ?` implies `col IS NOT NULL`).
      ...scopes.map((scope) =>
        uniqueIndex(`variable_${scope.name}_key_unique`)
          .on(scope, t.key)
          .where(sql`${scope} IS NOT NULL`),
      ),
      index('variable_binding_id_index').on(t.bindingId).where(sql`${t.bindingId} IS NOT NULL`),
    ];
  },
);

export type Variable = typeof variable.$inferSelect;
export type NewVariable = typeof variable.$inferInsert;
