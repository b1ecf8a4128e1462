/**
 * consumed_challenge — ids of single-use challenge envelopes (pn2fa, pnwebauthn, pnoauth) that
 * have been redeemed. Inserting the id is the redemption: the primary key makes a replay fail.
 * Rows past expires_at can be purged (the envelope itself has expired by then).
 */
import { check, index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { lengthBetween, timestampMs } from './columns.ts';

export const consumedChallenge = sqliteTable(
  'consumed_challenge',
  {
    /** The challenge id carried inside the envelope (not generated here). */
    id: text('id').primaryKey(),
    /** The envelope purpose (for example `pn2fa`); a redeemed id is bound to it. */
    purpose: text('purpose').notNull(),
    expiresAt: timestampMs('expires_at').notNull(),
  },
  (t) => [
    check('consumed_challenge_id_length', lengthBetween(t.id, 1, 255)),
    check('consumed_challenge_purpose_length', lengthBetween(t.purpose, 1, 64)),
    index('consumed_challenge_expires_at_index').on(t.expiresAt),
  ],
);

export type ConsumedChallenge = typeof consumedChallenge.$inferSelect;
export type NewConsumedChallenge = typeof consumedChallenge.$inferInsert;
