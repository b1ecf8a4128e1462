import { eq, getTableColumns, type SQLWrapper, sql } from 'drizzle-orm';
import { type Environment, environment, type NewEnvironment, project, service } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export type OwnedEnvironment = Environment & { organizationId: string };

/**
 * The organization owning the environment `environmentId` (a column or expression), as a scalar
 * subquery: in SQLite a join costs several times more than correlated primary-key lookups.
 */
export const organizationOfEnvironment = (environmentId: SQLWrapper) => {
  const projectId = sql`(select ${environment.projectId} from ${environment} where ${environment.id} = ${environmentId})`;
  return sql<string>`(select ${project.organizationId} from ${project} where ${project.id} = ${projectId})`;
};

const findEnvironmentStatement = (db: Queryable) =>
  db
    .select({
      ...getTableColumns(environment),
      organizationId: sql<string>`(select ${project.organizationId} from ${project} where ${project.id} = ${environment.projectId})`,
    })
    .from(environment)
    .where(eq(environment.id, sql.placeholder('id')))
    .prepare();

/** The environment with its project's organization (the one tenancy check needs it); prepared: every service list reads it. */
export function findEnvironment(db: Queryable, id: string): OwnedEnvironment | undefined {
  return preparedOnce(db, findEnvironmentStatement).get({ id });
}

export function listEnvironmentsOf(db: Queryable, projectId: string, page: PageRequest): Page<Environment> {
  const { where, fetch, limit } = pageWindow(environment.id, page, eq(environment.projectId, projectId));
  return toPage(db.select().from(environment).where(where).orderBy(environment.id).limit(fetch).all(), limit);
}

export function environmentHasServices(db: Queryable, id: string): boolean {
  return db.select({ id: service.id }).from(service).where(eq(service.environmentId, id)).limit(1).get() !== undefined;
}

export function insertEnvironment(db: Queryable, values: NewEnvironment): Environment {
  return db.insert(environment).values(values).returning().get();
}

export function updateEnvironmentRow(db: Queryable, id: string, changes: Partial<NewEnvironment>): Environment {
  return db.update(environment).set(changes).where(eq(environment.id, id)).returning().get()!;
}

export function deleteEnvironmentRow(db: Queryable, id: string): void {
  db.delete(environment).where(eq(environment.id, id)).run();
}
