/** storage — a taggable storage target (spec: referenced only). */
import { check, index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { id, lengthBetween, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';

export const storage = sqliteTable(
  'storage',
  {
    id: id(),
    /** Cascade: storages belong to their organization (their markers cascade too). */
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Free text for now (for example `s3`, `local`): the spec names no vocabulary. */
    kind: text('kind').notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('storage', t.id),
    check('storage_name_length', lengthBetween(t.name, 1, 255)),
    check('storage_kind_length', lengthBetween(t.kind, 1, 32)),
    index('storage_organization_id_index').on(t.organizationId),
  ],
);

export type Storage = typeof storage.$inferSelect;
export type NewStorage = typeof storage.$inferInsert;
