/** workspace — grouping of projects inside one organization. No metadata/options (spec). */
import { sql } from 'drizzle-orm';
import { check, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, matchesCharacters, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { workspaceKinds } from '../../contract/enums.ts';

export const workspace = sqliteTable(
  'workspace',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    name: text('name'),
    description: text('description'),
    kind: text('kind', { enum: workspaceKinds }).notNull().default('user'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('workspace', t.id),
    check('workspace_name_format', matchesCharacters(t.name, 'A-Za-z0-9 ._-', 255)),
    enumCheck('workspace', t.kind, workspaceKinds),
    // Exact (case-sensitive) match: the spec enforces this at the API; the index is the backstop.
    // Its leading column also serves the organization_id foreign key.
    uniqueIndex('workspace_organization_id_name_unique').on(t.organizationId, t.name),
    uniqueIndex('workspace_one_panel_per_organization').on(t.organizationId).where(sql`${t.kind} = 'panel'`),
  ],
);

export type Workspace = typeof workspace.$inferSelect;
export type NewWorkspace = typeof workspace.$inferInsert;
