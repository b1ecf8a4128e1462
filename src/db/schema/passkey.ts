/**
 * passkey — a WebAuthn credential registered by a user (a second factor, or a password-less
 * sign-in). Public material only: the credential id and COSE public key, both base64url.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { boolean, booleanCheck, id, isIntegerAtLeast, lengthBetween, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { user } from './user.ts';

export const passkey = sqliteTable(
  'passkey',
  {
    id: id(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** The authenticator's credential id, base64url; unique across the instance. */
    credentialId: text('credential_id').notNull(),
    /** COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    /** Signature counter reported by the authenticator (0 when it does not count). */
    counter: integer('counter').notNull().default(0),
    /** Transport hints (`usb`, `nfc`, `ble`, `internal`, `hybrid`…) as a JSON array of strings. */
    transports: text('transports', { mode: 'json' }).$type<string[]>(),
    /** User-given label ("YubiKey 5", "MacBook"). */
    name: text('name').notNull(),
    /** `singleDevice` or `multiDevice` as reported at registration. */
    deviceType: text('device_type'),
    isBackedUp: boolean('is_backed_up').notNull().default(false),
    lastUsedAt: timestampMs('last_used_at'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('passkey', t.id),
    check('passkey_credential_id_length', lengthBetween(t.credentialId, 1, 1024)),
    check('passkey_public_key_length', lengthBetween(t.publicKey, 1, 4096)),
    check('passkey_counter_is_integer', isIntegerAtLeast(t.counter, 0)),
    check(
      'passkey_transports_is_json_array',
      sql`CASE WHEN ${t.transports} IS NULL THEN 1 WHEN json_valid(${t.transports}) THEN json_type(${t.transports}) = 'array' ELSE 0 END`,
    ),
    check('passkey_name_length', lengthBetween(t.name, 1, 255)),
    check('passkey_device_type_length', lengthBetween(t.deviceType, 1, 32)),
    booleanCheck('passkey', t.isBackedUp),
    uniqueIndex('passkey_credential_id_unique').on(t.credentialId),
    index('passkey_user_id_index').on(t.userId),
  ],
);

export type Passkey = typeof passkey.$inferSelect;
export type NewPasskey = typeof passkey.$inferInsert;
