import { and, eq, getTableColumns, isNotNull, ne, sql } from 'drizzle-orm';
import { environment, type NewEnvironment, type NewProject, type Project, project } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable, rowDecoder } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export interface ProjectParents {
  workspaceId?: string;
  organizationId?: string;
}

const projectFields = getTableColumns(project);
const decodeProject = rowDecoder(projectFields);
const findProjectStatement = (db: Queryable) => db.select(projectFields).from(project).where(eq(project.id, sql.placeholder('id'))).prepare();

/** Every project route reads its project first: decoded like services' hot reads (rowDecoder). */
export function findProject(db: Queryable, id: string): Project | undefined {
  const [values] = preparedOnce(db, findProjectStatement).values({ id });
  return values && decodeProject(values);
}

export function listProjectsOf(db: Queryable, parents: ProjectParents, page: PageRequest): Page<Project> {
  const { where, fetch, limit } = pageWindow(
    project.id,
    page,
    parents.workspaceId ? eq(project.workspaceId, parents.workspaceId) : undefined,
    parents.organizationId ? eq(project.organizationId, parents.organizationId) : undefined,
  );
  return toPage(db.select().from(project).where(where).orderBy(project.id).limit(fetch).all(), limit);
}

/** Every named project of an organization but one: names compare after a full Unicode fold, done in code. */
export function projectNamesOf(db: Queryable, organizationId: string, exceptId?: string): string[] {
  return db
    .select({ name: project.name })
    .from(project)
    .where(and(eq(project.organizationId, organizationId), isNotNull(project.name), exceptId ? ne(project.id, exceptId) : undefined))
    .all()
    .map((row) => row.name!);
}

export function projectHasEnvironments(db: Queryable, id: string): boolean {
  return db.select({ id: environment.id }).from(environment).where(eq(environment.projectId, id)).limit(1).get() !== undefined;
}

/** A project and its first environment, in the caller's transaction. */
export function insertProjectWithEnvironment(db: Queryable, values: NewProject, first: Omit<NewEnvironment, 'projectId'>): Project {
  const row = db.insert(project).values(values).returning().get();
  db.insert(environment).values({ ...first, projectId: row.id }).run();
  return row;
}

export function updateProjectRow(db: Queryable, id: string, changes: Partial<NewProject>): Project {
  return db.update(project).set(changes).where(eq(project.id, id)).returning().get()!;
}

export function deleteProjectRow(db: Queryable, id: string): void {
  db.delete(project).where(eq(project.id, id)).run();
}
