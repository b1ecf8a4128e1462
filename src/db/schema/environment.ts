/** environment — one deployable copy of a project (staging, production, ...), deployed as a unit. */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import {
  id,
  isIntegerAtLeast,
  jsonObject,
  jsonObjectCheck,
  matchesCharacters,
  timestamps,
  uuidV7Check,
} from './columns.ts';
import { project } from './project.ts';
import { server } from './server.ts';

export const environment = sqliteTable(
  'environment',
  {
    id: id(),
    /** `serverId` and `component` keys are stripped by the API. */
    metadata: jsonObject('metadata'),
    /** `compose`: the overlay ComposeDocument; placement keys are stripped by the API. */
    options: jsonObject('options'),
    projectId: text('project_id')
      .notNull()
      .references(() => project.id, { onDelete: 'restrict' }),
    /** Desired whole-server placement pin; null inherits project.options.defaultServerId. */
    serverId: text('server_id').references(() => server.id, { onDelete: 'restrict' }),
    /** Desired generation: +1 per deploy plan, copied into deployment.desired_generation. */
    generation: integer('generation').notNull().default(0),
    name: text('name'),
    description: text('description'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('environment', t.id),
    jsonObjectCheck('environment', t.metadata),
    jsonObjectCheck('environment', t.options),
    check('environment_generation_non_negative', isIntegerAtLeast(t.generation, 0)),
    check('environment_name_format', matchesCharacters(t.name, 'A-Za-z0-9 ._/-', 255)),
    index('environment_project_id_id_index').on(t.projectId, t.id),
    index('environment_server_id_index').on(t.serverId).where(sql`${t.serverId} IS NOT NULL`),
  ],
);

export type Environment = typeof environment.$inferSelect;
export type NewEnvironment = typeof environment.$inferInsert;
