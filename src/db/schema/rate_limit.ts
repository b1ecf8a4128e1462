/**
 * rate_limit — one row per failed attempt (sign-in, second factor, passkey, install) under a
 * bucket key such as `sign-in:account:<hash>` or `sign-in:address:<ip>`. Counting the rows of a
 * key inside a policy's window gives an exact sliding window; rows older than the longest
 * window are purged as new ones arrive. Kept in SQLite so a restart does not reset the limits.
 */
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { lengthBetween, timestampMs } from './columns.ts';

export const rateLimit = sqliteTable(
  'rate_limit',
  {
    /** rowid alias: failures are not resources and carry no UUID. */
    id: integer('id').primaryKey(),
    key: text('key').notNull(),
    failedAt: timestampMs('failed_at').notNull(),
  },
  (t) => [
    check('rate_limit_key_length', lengthBetween(t.key, 1, 512)),
    index('rate_limit_key_failed_at_index').on(t.key, t.failedAt),
    index('rate_limit_failed_at_index').on(t.failedAt),
  ],
);

export type RateLimitRow = typeof rateLimit.$inferSelect;
