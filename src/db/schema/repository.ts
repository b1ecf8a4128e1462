/** repository — a source repository a project may be backed by (spec: referenced only). */
import { check, index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { id, lengthBetween, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';

export const repository = sqliteTable(
  'repository',
  {
    id: id(),
    /** Cascade: repositories belong to their organization (projects pointing at one still restrict). */
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    url: text('url').notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('repository', t.id),
    check('repository_name_length', lengthBetween(t.name, 1, 255)),
    check('repository_url_length', lengthBetween(t.url, 1, 2048)),
    index('repository_organization_id_index').on(t.organizationId),
  ],
);

export type Repository = typeof repository.$inferSelect;
export type NewRepository = typeof repository.$inferInsert;
