/**
 * user — a person who signs in. Organization access goes through membership.
 * The spec only references it; the fields below are what authentication needs.
 */
import { sql } from 'drizzle-orm';
import { check, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { boolean, booleanCheck, id, lengthBetween, timestamps, uuidV7Check } from './columns.ts';

export const user = sqliteTable(
  'user',
  {
    id: id(),
    email: text('email').notNull(),
    /** Argon2id PHC string; null for accounts that only sign in through passkeys or OAuth. */
    passwordHash: text('password_hash'),
    displayName: text('display_name'),
    /** Instance-wide administrator (install wizard's first user); may re-encrypt secrets. */
    isSuperadmin: boolean('is_superadmin').notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('user', t.id),
    // Loose shape only (something@something, RFC 5321 length); real validation is the API's.
    check('user_email_shape', sql`${lengthBetween(t.email, 3, 320)} AND instr(${t.email}, '@') > 1`),
    check('user_display_name_length', lengthBetween(t.displayName, 1, 255)),
    booleanCheck('user', t.isSuperadmin),
    // Case-insensitive: SQLite lower() folds ASCII only; the API lower-cases the full address first.
    uniqueIndex('user_email_unique').on(sql`lower(${t.email})`),
  ],
);

export type User = typeof user.$inferSelect;
export type NewUser = typeof user.$inferInsert;
