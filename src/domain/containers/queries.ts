import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { type Container, container, type ContainerRole, type NewContainer } from '../../db/schema/index.ts';
import { organizationOfService } from '../services/queries.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export type OwnedContainer = Container & { organizationId: string };

export interface ContainerParents {
  serviceId?: string;
  serverId?: string;
}

const findContainerStatement = (db: Queryable) =>
  db
    .select({ ...getTableColumns(container), organizationId: organizationOfService(container.serviceId) })
    .from(container)
    .where(eq(container.id, sql.placeholder('id')))
    .prepare();

/** The container with the organization of its service. */
export function findContainer(db: Queryable, id: string): OwnedContainer | undefined {
  return preparedOnce(db, findContainerStatement).get({ id });
}

export function listContainersOf(db: Queryable, parents: ContainerParents, page: PageRequest): Page<Container> {
  const { where, fetch, limit } = pageWindow(
    container.id,
    page,
    parents.serviceId ? eq(container.serviceId, parents.serviceId) : undefined,
    parents.serverId ? eq(container.serverId, parents.serverId) : undefined,
  );
  return toPage(db.select().from(container).where(where).orderBy(container.id).limit(fetch).all(), limit);
}

export function isOrdinalTaken(db: Queryable, serviceId: string, role: ContainerRole, ordinal: number): boolean {
  const row = db
    .select({ id: container.id })
    .from(container)
    .where(and(eq(container.serviceId, serviceId), eq(container.role, role), eq(container.ordinal, ordinal)))
    .get();
  return row !== undefined;
}

export function insertContainer(db: Queryable, values: NewContainer): Container {
  return db.insert(container).values(values).returning().get();
}

export function updateContainerRow(db: Queryable, id: string, changes: Partial<NewContainer>): Container {
  return db.update(container).set(changes).where(eq(container.id, id)).returning().get()!;
}

export function deleteContainerRow(db: Queryable, id: string): void {
  db.delete(container).where(eq(container.id, id)).run();
}
