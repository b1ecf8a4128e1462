/** tag — organization-owned tag definition, applied to entities through markers. */
import { sql } from 'drizzle-orm';
import { check, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, jsonObject, jsonObjectCheck, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';

const HEX = '[0-9A-Fa-f]';

export const tag = sqliteTable(
  'tag',
  {
    id: id(),
    /** Reserved; never written. */
    metadata: jsonObject('metadata'),
    options: jsonObject('options'),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** No format check (spec). */
    name: text('name').notNull(),
    /** Normalized like a display name by the API; null when empty. */
    description: text('description'),
    /** `#rgb` or `#rrggbb`; null when unset. */
    color: text('color'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('tag', t.id),
    jsonObjectCheck('tag', t.metadata),
    jsonObjectCheck('tag', t.options),
    check(
      'tag_color_format',
      sql`${t.color} GLOB ${sql.raw(`'#${HEX.repeat(3)}'`)} OR ${t.color} GLOB ${sql.raw(`'#${HEX.repeat(6)}'`)}`,
    ),
    // Lower-cased and trimmed. SQLite lower() folds ASCII only; the API lower-cases the full
    // Unicode name first, so this index is the backstop. Also serves the organization_id key.
    uniqueIndex('tag_organization_id_name_unique').on(t.organizationId, sql`lower(trim(${t.name}))`),
  ],
);

export type Tag = typeof tag.$inferSelect;
export type NewTag = typeof tag.$inferInsert;
