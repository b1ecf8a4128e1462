/**
 * user_totp — a user's TOTP second factor. One row per user: unconfirmed while enrolling
 * (confirmed_at null), enabled once a code has confirmed it. The shared secret is stored sealed
 * (`pnsecret`, owner {table 'user_totp', column 'secret', id}); `last_used_step` makes each code
 * single use (a code is accepted only for a time step after the last accepted one).
 */
import { check, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, isIntegerAtLeast, isSealedSecret, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { user } from './user.ts';

export const userTotp = sqliteTable(
  'user_totp',
  {
    id: id(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** Sealed base32 secret (`pnsecret.v1.…`); never returned after enrolment. */
    secret: text('secret').notNull(),
    /** Null while the enrolment waits for its first code. */
    confirmedAt: timestampMs('confirmed_at'),
    /** The RFC 6238 time step (unix seconds / 30) of the last accepted code. */
    lastUsedStep: integer('last_used_step'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('user_totp', t.id),
    check('user_totp_secret_is_sealed', isSealedSecret(t.secret)),
    check('user_totp_last_used_step_is_integer', isIntegerAtLeast(t.lastUsedStep, 0)),
    uniqueIndex('user_totp_user_id_unique').on(t.userId),
  ],
);

export type UserTotp = typeof userTotp.$inferSelect;
export type NewUserTotp = typeof userTotp.$inferInsert;
