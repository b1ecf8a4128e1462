/**
 * api_token — a bearer credential for automation, bound to one organization and one role
 * (never more than its creator held). Only the token's hash is stored; revoking deletes the row.
 */
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { check } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, lengthBetween, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { user } from './user.ts';
import { membershipRoles } from '../../contract/enums.ts';

export const apiToken = sqliteTable(
  'api_token',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** The user who created it; the token dies with the user. */
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    role: text('role', { enum: membershipRoles }).notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestampMs('expires_at'),
    lastUsedAt: timestampMs('last_used_at'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('api_token', t.id),
    check('api_token_name_length', lengthBetween(t.name, 1, 255)),
    enumCheck('api_token', t.role, membershipRoles),
    uniqueIndex('api_token_token_hash_unique').on(t.tokenHash),
    index('api_token_organization_id_index').on(t.organizationId),
    index('api_token_user_id_index').on(t.userId),
  ],
);

export type ApiToken = typeof apiToken.$inferSelect;
