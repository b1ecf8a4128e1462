/** datacenter — a taggable grouping of servers (spec: referenced only). */
import { check, index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { id, lengthBetween, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';

export const datacenter = sqliteTable(
  'datacenter',
  {
    id: id(),
    /** Cascade: datacenters belong to their organization (their markers cascade too). */
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('datacenter', t.id),
    check('datacenter_name_length', lengthBetween(t.name, 1, 255)),
    index('datacenter_organization_id_index').on(t.organizationId),
  ],
);

export type Datacenter = typeof datacenter.$inferSelect;
export type NewDatacenter = typeof datacenter.$inferInsert;
