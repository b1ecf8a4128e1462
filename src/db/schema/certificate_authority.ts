/**
 * certificate_authority — the organization CA: one self-signed root per organization that every
 * server's internal certificates chain to, so people trust one root instead of one per server
 * (docs/DECISIONS.md "Ingress"). Created on first use. The root key never leaves the control
 * plane: servers get a CA of their own that this root signs (server_certificate_authority).
 */
import { check, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, isSealedSecret, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';

export const certificateAuthority = sqliteTable(
  'certificate_authority',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** The root certificate (PEM, public). */
    certificate: text('certificate').notNull(),
    /** Its PKCS#8 private key sealed as a `pnsecret` envelope. */
    privateKey: text('private_key').notNull(),
    notAfter: timestampMs('not_after').notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('certificate_authority', t.id),
    check('certificate_authority_private_key_is_sealed', isSealedSecret(t.privateKey)),
    uniqueIndex('certificate_authority_organization_id_unique').on(t.organizationId),
  ],
);

export type CertificateAuthority = typeof certificateAuthority.$inferSelect;
