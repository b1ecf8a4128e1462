/**
 * hostname — uniqueness mirror of hosting.options.hostnames: one row per hostname, replaced on
 * every hosting write. No metadata/options (spec).
 *
 * routing_organization_id is currently always the hosting's own organization; a trigger
 * (0001_add_triggers) refuses any other value.
 */
import { sql } from 'drizzle-orm';
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, lengthBetween, timestamps, uuidV7Check } from './columns.ts';
import { hosting } from './hosting.ts';
import { organization } from './organization.ts';

export const hostname = sqliteTable(
  'hostname',
  {
    id: id(),
    hostingId: text('hosting_id')
      .notNull()
      .references(() => hosting.id, { onDelete: 'cascade' }),
    routingOrganizationId: text('routing_organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** One DNS name copied verbatim from the hosting options (253 = longest DNS name). */
    hostname: text('hostname').notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('hostname', t.id),
    check('hostname_hostname_length', lengthBetween(t.hostname, 1, 253)),
    // DNS names are case-insensitive, and the path prefix plays no part. Hostnames are ASCII
    // (IDNs travel as punycode), so SQLite's ASCII-only lower() is enough here.
    uniqueIndex('hostname_routing_organization_id_hostname_unique').on(
      t.routingOrganizationId,
      sql`lower(${t.hostname})`,
    ),
    index('hostname_hosting_id_index').on(t.hostingId),
  ],
);

export type Hostname = typeof hostname.$inferSelect;
export type NewHostname = typeof hostname.$inferInsert;
