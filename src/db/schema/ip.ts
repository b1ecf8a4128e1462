/** ip — a registered address a hosting can bind to (spec: referenced only). */
import { check, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, lengthBetween, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { ipScopes } from '../../contract/enums.ts';

export const ip = sqliteTable(
  'ip',
  {
    id: id(),
    /** Cascade: addresses belong to their organization; hostings pointing at one are set null. */
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** IPv4 or IPv6 address in text form (validated by the API). */
    address: text('address').notNull(),
    scope: text('scope', { enum: ipScopes }).notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('ip', t.id),
    check('ip_address_length', lengthBetween(t.address, 2, 45)),
    enumCheck('ip', t.scope, ipScopes),
    uniqueIndex('ip_organization_id_address_unique').on(t.organizationId, t.address),
  ],
);

export type Ip = typeof ip.$inferSelect;
export type NewIp = typeof ip.$inferInsert;
