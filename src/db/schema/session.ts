/**
 * session — an opaque sign-in token. Only its hash is stored; the cookie carries the token.
 */
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { user } from './user.ts';

export const session = sqliteTable(
  'session',
  {
    id: id(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** Hash of the bearer token (the token itself is never stored). */
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestampMs('expires_at').notNull(),
    lastSeenAt: timestampMs('last_seen_at'),
    createdIp: text('created_ip'),
    userAgent: text('user_agent'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('session', t.id),
    uniqueIndex('session_token_hash_unique').on(t.tokenHash),
    index('session_user_id_index').on(t.userId),
    index('session_expires_at_index').on(t.expiresAt),
  ],
);

export type Session = typeof session.$inferSelect;
export type NewSession = typeof session.$inferInsert;
