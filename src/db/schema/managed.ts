/**
 * managed — a managed database engine cluster (spec: referenced only). Its database users are
 * principals (kind `database`, managed_id set); its instances are replicas.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, jsonObject, jsonObjectCheck, lengthBetween, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { managedEngines } from '../../contract/enums.ts';

export const managed = sqliteTable(
  'managed',
  {
    id: id(),
    /** The cluster's home organization. */
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    engine: text('engine', { enum: managedEngines }).notNull(),
    /** Engine version, for example `16` or `8.4`; null until chosen. */
    version: text('version'),
    /** Where consumers connect (the ingress frontend); null until allocated. */
    host: text('host'),
    port: integer('port'),
    /** Cluster settings; `databases` (array of names) lists what bindings may reference. */
    options: jsonObject('options'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('managed', t.id),
    check('managed_name_length', lengthBetween(t.name, 1, 255)),
    enumCheck('managed', t.engine, managedEngines),
    check('managed_port_range', sql`${t.port} IS NULL OR (typeof(${t.port}) = 'integer' AND ${t.port} BETWEEN 1 AND 65535)`),
    jsonObjectCheck('managed', t.options),
    check(
      'managed_options_databases_is_array',
      sql`CASE WHEN json_valid(${t.options}) THEN coalesce(json_type(${t.options}, '$.databases'), 'array') = 'array' ELSE 1 END`,
    ),
    index('managed_organization_id_index').on(t.organizationId),
  ],
);

export type Managed = typeof managed.$inferSelect;
export type NewManaged = typeof managed.$inferInsert;
