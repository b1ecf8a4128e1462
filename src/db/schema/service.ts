/**
 * service — one deployable unit (a Compose service) within an environment. Rows are derived from
 * the Compose document, managed allocation or daemon reports; clients never write
 * compose_service_name.
 */
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, jsonObject, jsonObjectCheck, lengthBetween, matchesCharacters, timestamps, uuidV7Check } from './columns.ts';
import { environment } from './environment.ts';

export const service = sqliteTable(
  'service',
  {
    id: id(),
    /** Client JSON for non-indexed facts; never holds the compose name. */
    metadata: jsonObject('metadata'),
    /** `instances`, `build`, `operations`, `healthCheck`, `resources`, deploy hooks. */
    options: jsonObject('options'),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environment.id, { onDelete: 'restrict' }),
    /** Not unique; reconcile defaults it to the Compose service key. */
    name: text('name'),
    description: text('description'),
    composeServiceName: text('compose_service_name').notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('service', t.id),
    jsonObjectCheck('service', t.metadata),
    jsonObjectCheck('service', t.options),
    check('service_name_format', matchesCharacters(t.name, 'A-Za-z0-9 ._-', 255)),
    check('service_compose_service_name_length', lengthBetween(t.composeServiceName, 1, 255)),
    // Also serves the environment_id foreign key.
    uniqueIndex('service_environment_id_compose_service_name_unique').on(t.environmentId, t.composeServiceName),
    // Lists page by id within an environment (WHERE environment_id = ? AND id > ? ORDER BY id).
    index('service_environment_id_id_index').on(t.environmentId, t.id),
  ],
);

export type Service = typeof service.$inferSelect;
export type NewService = typeof service.$inferInsert;
