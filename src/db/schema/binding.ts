/**
 * binding — attaches a managed-database principal to a consuming service; materializes
 * system-owned variable rows (variable.binding_id) that inject the credentials at deploy.
 */
import { sql } from 'drizzle-orm';
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import {
  boolean,
  booleanCheck,
  id,
  jsonObject,
  jsonObjectCheck,
  matchesEnvironmentKey,
  timestamps,
  uuidV7Check,
} from './columns.ts';
import { principal } from './principal.ts';
import { service } from './service.ts';

export const binding = sqliteTable(
  'binding',
  {
    id: id(),
    /** Reserved; never written. */
    metadata: jsonObject('metadata'),
    options: jsonObject('options'),
    /** Cascade: principal gone, binding gone (and its variables with it). */
    principalId: text('principal_id')
      .notNull()
      .references(() => principal.id, { onDelete: 'cascade' }),
    /** Restrict: a service with bindings cannot be deleted. */
    serviceId: text('service_id')
      .notNull()
      .references(() => service.id, { onDelete: 'restrict' }),
    /** Must be one of the cluster's options.databases (checked by the API). */
    databaseName: text('database_name').notNull(),
    /** Prefix of the emitted credential keys. */
    keyPrefix: text('key_prefix').notNull().default('DATABASE'),
    /** API `emitEngineDefaults`: also emit PG*, MYSQL_* style keys. */
    isEmitEngineDefaults: boolean('is_emit_engine_defaults').notNull().default(true),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('binding', t.id),
    jsonObjectCheck('binding', t.metadata),
    jsonObjectCheck('binding', t.options),
    check('binding_database_name_format', matchesEnvironmentKey(t.databaseName, 63)),
    check('binding_key_prefix_format', matchesEnvironmentKey(t.keyPrefix, 64)),
    booleanCheck('binding', t.isEmitEngineDefaults),
    // Also serves the service_id foreign key.
    uniqueIndex('binding_service_id_key_prefix_unique').on(t.serviceId, t.keyPrefix),
    // Two bindings emitting PGHOST & co. into one service would overwrite each other.
    uniqueIndex('binding_one_engine_defaults_per_service')
      .on(t.serviceId)
      .where(sql`${t.isEmitEngineDefaults} = 1`),
    index('binding_principal_id_index').on(t.principalId),
  ],
);

export type Binding = typeof binding.$inferSelect;
export type NewBinding = typeof binding.$inferInsert;
