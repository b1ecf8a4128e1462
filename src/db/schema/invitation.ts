/**
 * invitation — an e-mail invited into an organization with a role. The token is shown once and
 * only its SHA-256 is stored; it expires and is spent by accepting (accepted_at set once).
 * The invitation dies with its inviter: it never grants more than the inviter holds.
 */
import { sql } from 'drizzle-orm';
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, lengthBetween, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { user } from './user.ts';
import { membershipRoles } from '../../contract/enums.ts';

export const invitation = sqliteTable(
  'invitation',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** Lower-cased e-mail the invitation is for; accepting requires this address. */
    email: text('email').notNull(),
    role: text('role', { enum: membershipRoles }).notNull(),
    invitedByUserId: text('invited_by_user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestampMs('expires_at').notNull(),
    acceptedAt: timestampMs('accepted_at'),
    acceptedByUserId: text('accepted_by_user_id').references(() => user.id, { onDelete: 'set null' }),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('invitation', t.id),
    check('invitation_email_shape', sql`${lengthBetween(t.email, 3, 320)} AND instr(${t.email}, '@') > 1`),
    enumCheck('invitation', t.role, membershipRoles),
    uniqueIndex('invitation_token_hash_unique').on(t.tokenHash),
    index('invitation_organization_id_index').on(t.organizationId),
    index('invitation_invited_by_user_id_index').on(t.invitedByUserId),
    index('invitation_accepted_by_user_id_index').on(t.acceptedByUserId),
  ],
);

export type Invitation = typeof invitation.$inferSelect;
export type NewInvitation = typeof invitation.$inferInsert;
