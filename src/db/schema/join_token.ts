/**
 * join_token — lets one daemon enroll into an organization (`panel daemon join <url> --token T`).
 * Created by organization admins; the token is shown once and only its SHA-256 is stored. It
 * expires (default 1 h, at most 7 days), is single-use (used_at is set by the enrollment that
 * spends it, naming the server it enrolled) and is revoked by deleting the row. A token made to
 * replace a server (`replaces_server_id`) is the only way a machine already enrolled enrolls
 * again: its enrollment takes over that server's record. It dies with that server.
 */
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { server } from './server.ts';
import { user } from './user.ts';

export const joinToken = sqliteTable(
  'join_token',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** The admin who created it; an unspent token dies with its creator. */
    createdByUserId: text('created_by_user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestampMs('expires_at').notNull(),
    /** Set once, by the enrollment that spent the token. */
    usedAt: timestampMs('used_at'),
    /** The server that enrollment created or re-enrolled; cleared if the server is deleted. */
    serverId: text('server_id').references(() => server.id, { onDelete: 'set null' }),
    /** Set when the token was made to replace this server: its enrollment takes over the record. */
    replacesServerId: text('replaces_server_id').references(() => server.id, { onDelete: 'cascade' }),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('join_token', t.id),
    uniqueIndex('join_token_token_hash_unique').on(t.tokenHash),
    index('join_token_organization_id_id_index').on(t.organizationId, t.id),
    index('join_token_created_by_user_id_index').on(t.createdByUserId),
    index('join_token_server_id_index').on(t.serverId),
    index('join_token_replaces_server_id_index').on(t.replacesServerId),
  ],
);

export type JoinToken = typeof joinToken.$inferSelect;
export type NewJoinToken = typeof joinToken.$inferInsert;
