/**
 * project — one application or stack described by one Compose document, owned by a workspace.
 *
 * organization_id is a copy of the workspace's organization. A trigger (0001_add_triggers) refuses
 * a row whose copy disagrees with its workspace, and a workspace move while it holds projects.
 */
import { sql } from 'drizzle-orm';
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, jsonObject, jsonObjectCheck, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { repository } from './repository.ts';
import { workspace } from './workspace.ts';
import { projectComponents } from '../../contract/enums.ts';

export const project = sqliteTable(
  'project',
  {
    id: id(),
    /** Client-supplied; `type` is docker-compose | managed | template | system (validated by the API). */
    metadata: jsonObject('metadata'),
    /** `compose` (base ComposeDocument), `containerNaming`, `defaultServerId`, `composeSource`. */
    options: jsonObject('options'),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspace.id, { onDelete: 'restrict' }),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    repositoryId: text('repository_id').references(() => repository.id, { onDelete: 'restrict' }),
    name: text('name'),
    description: text('description'),
    component: text('component', { enum: projectComponents }),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('project', t.id),
    jsonObjectCheck('project', t.metadata),
    jsonObjectCheck('project', t.options),
    enumCheck('project', t.component, projectComponents),
    // Trimmed and case-folded. SQLite lower() folds ASCII only, so the API also folds the full
    // Unicode name before comparing and answers 409 project_name_in_use; this is the backstop.
    uniqueIndex('project_organization_id_name_unique').on(t.organizationId, sql`lower(trim(${t.name}))`),
    uniqueIndex('project_workspace_id_component_unique')
      .on(t.workspaceId, t.component)
      .where(sql`${t.component} IS NOT NULL`),
    index('project_workspace_id_id_index').on(t.workspaceId, t.id),
    index('project_repository_id_index').on(t.repositoryId),
  ],
);

export type Project = typeof project.$inferSelect;
export type NewProject = typeof project.$inferInsert;
