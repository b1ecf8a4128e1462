/** membership — a user's role in one organization. */
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { user } from './user.ts';
import { membershipRoles } from '../../contract/enums.ts';

export const membership = sqliteTable(
  'membership',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    role: text('role', { enum: membershipRoles }).notNull().default('member'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('membership', t.id),
    enumCheck('membership', t.role, membershipRoles),
    uniqueIndex('membership_organization_id_user_id_unique').on(t.organizationId, t.userId),
    index('membership_user_id_index').on(t.userId),
  ],
);

export type Membership = typeof membership.$inferSelect;
export type NewMembership = typeof membership.$inferInsert;
