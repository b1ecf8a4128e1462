/** tls — a certificate in the organization's TLS library (spec: referenced only). */
import { check, index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { id, isSealedSecret, lengthBetween, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';

export const tls = sqliteTable(
  'tls',
  {
    id: id(),
    /** Cascade: certificates belong to their organization; hostings pointing at one are set null. */
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** PEM certificate chain (public). */
    certificate: text('certificate').notNull(),
    /** PEM private key sealed as a `pnsecret` envelope; plaintext is refused. */
    privateKey: text('private_key').notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('tls', t.id),
    check('tls_name_length', lengthBetween(t.name, 1, 255)),
    check('tls_private_key_is_sealed', isSealedSecret(t.privateKey)),
    index('tls_organization_id_index').on(t.organizationId),
  ],
);

export type Tls = typeof tls.$inferSelect;
export type NewTls = typeof tls.$inferInsert;
