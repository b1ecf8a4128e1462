import { and, eq, ne, sql } from 'drizzle-orm';
import { type NewWorkspace, project, type Workspace, workspace } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

const findWorkspaceStatement = (db: Queryable) => db.select().from(workspace).where(eq(workspace.id, sql.placeholder('id'))).prepare();

export function findWorkspace(db: Queryable, id: string): Workspace | undefined {
  return preparedOnce(db, findWorkspaceStatement).get({ id });
}

export function listWorkspacesOf(db: Queryable, organizationId: string, page: PageRequest): Page<Workspace> {
  const { where, fetch, limit } = pageWindow(workspace.id, page, eq(workspace.organizationId, organizationId));
  return toPage(db.select().from(workspace).where(where).orderBy(workspace.id).limit(fetch).all(), limit);
}

/** Names are ASCII by pattern, so SQLite's lower() compares them case-insensitively in full. */
export function isWorkspaceNameTaken(db: Queryable, organizationId: string, name: string, exceptId?: string): boolean {
  const row = db
    .select({ id: workspace.id })
    .from(workspace)
    .where(
      and(
        eq(workspace.organizationId, organizationId),
        eq(sql`lower(${workspace.name})`, name.toLowerCase()),
        exceptId ? ne(workspace.id, exceptId) : undefined,
      ),
    )
    .limit(1)
    .get();
  return row !== undefined;
}

export function workspaceHasProjects(db: Queryable, id: string): boolean {
  return db.select({ id: project.id }).from(project).where(eq(project.workspaceId, id)).limit(1).get() !== undefined;
}

export function insertWorkspace(db: Queryable, values: NewWorkspace): Workspace {
  return db.insert(workspace).values(values).returning().get();
}

export function updateWorkspaceRow(db: Queryable, id: string, changes: Partial<NewWorkspace>): Workspace {
  return db.update(workspace).set(changes).where(eq(workspace.id, id)).returning().get()!;
}

export function deleteWorkspaceRow(db: Queryable, id: string): void {
  db.delete(workspace).where(eq(workspace.id, id)).run();
}
