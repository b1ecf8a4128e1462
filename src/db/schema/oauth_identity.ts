/**
 * oauth_identity — a link between a user and an account at an external identity provider (a
 * code-hosting provider and a general one). `subject` is the provider's stable user id; the
 * e-mail is what the provider reported at the last sign-in.
 */
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, lengthBetween, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { user } from './user.ts';

export const oauthIdentity = sqliteTable(
  'oauth_identity',
  {
    id: id(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** Provider key, e.g. `github` or `google`. */
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    email: text('email'),
    lastUsedAt: timestampMs('last_used_at'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('oauth_identity', t.id),
    check('oauth_identity_provider_length', lengthBetween(t.provider, 1, 64)),
    check('oauth_identity_subject_length', lengthBetween(t.subject, 1, 255)),
    check('oauth_identity_email_length', lengthBetween(t.email, 3, 320)),
    uniqueIndex('oauth_identity_provider_subject_unique').on(t.provider, t.subject),
    uniqueIndex('oauth_identity_user_id_provider_unique').on(t.userId, t.provider),
  ],
);

export type OauthIdentity = typeof oauthIdentity.$inferSelect;
export type NewOauthIdentity = typeof oauthIdentity.$inferInsert;
