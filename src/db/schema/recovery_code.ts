/**
 * recovery_code — single-use second-factor codes (ten per user, regenerated as a set). Only the
 * SHA-256 of a code is stored; codes carry 80 random bits, so the hash cannot be reversed by
 * guessing. `used_at` is set when a code is spent.
 */
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, lengthBetween, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { user } from './user.ts';

export const recoveryCode = sqliteTable(
  'recovery_code',
  {
    id: id(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestampMs('used_at'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('recovery_code', t.id),
    check('recovery_code_code_hash_length', lengthBetween(t.codeHash, 16, 128)),
    uniqueIndex('recovery_code_user_id_code_hash_unique').on(t.userId, t.codeHash),
    index('recovery_code_user_id_index').on(t.userId),
  ],
);

export type RecoveryCode = typeof recoveryCode.$inferSelect;
export type NewRecoveryCode = typeof recoveryCode.$inferInsert;
