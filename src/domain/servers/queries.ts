import { and, eq, isNotNull, not, or, sql } from 'drizzle-orm';
import { container, environment, type NewServer, project, replica, type Server, server } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

const findServerStatement = (db: Queryable) => db.select().from(server).where(eq(server.id, sql.placeholder('id'))).prepare();

export function findServer(db: Queryable, id: string): Server | undefined {
  return preparedOnce(db, findServerStatement).get({ id });
}

export function listServersOf(db: Queryable, organizationId: string, page: PageRequest): Page<Server> {
  const { where, fetch, limit } = pageWindow(server.id, page, eq(server.organizationId, organizationId));
  return toPage(db.select().from(server).where(where).orderBy(server.id).limit(fetch).all(), limit);
}

/** Every server of the organization, in list order (the /ws/client/v1 snapshot). */
export function serversOfOrganization(db: Queryable, organizationId: string): Server[] {
  return db.select().from(server).where(eq(server.organizationId, organizationId)).orderBy(server.id).all();
}

/**
 * The name a new server record gets from its hostname: the hostname itself, or, when another
 * server of the organization already has that name (two machines called `ubuntu`), the hostname
 * with the start of the machine id, lengthened until it is unique: `ubuntu-3f9a1c`.
 */
export function distinctServerName(db: Queryable, organizationId: string, hostname: string, machineId: string): string {
  const taken = (name: string) => db.select({ id: server.id }).from(server).where(and(eq(server.organizationId, organizationId), eq(server.name, name))).get() !== undefined;
  const base = hostname.slice(0, 200);
  if (!taken(base)) return base;
  const suffix = machineId.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  for (let length = 6; length <= suffix.length; length += 2) {
    const candidate = `${base}-${suffix.slice(0, length)}`;
    if (!taken(candidate)) return candidate;
  }
  return `${base}-${suffix.slice(0, 54)}`;
}

export function updateServerRow(db: Queryable, id: string, changes: Partial<NewServer>): Server {
  return db.update(server).set(changes).where(eq(server.id, id)).returning().get()!;
}

export function deleteServerRow(db: Queryable, id: string): void {
  db.delete(server).where(eq(server.id, id)).run();
}

export function isServerPinned(db: Queryable, id: string): boolean {
  return db.select({ id: environment.id }).from(environment).where(eq(environment.serverId, id)).limit(1).get() !== undefined;
}

/** The row's container exists on its server, or waits for a deploy to create it there. */
const stillPlaced = or(isNotNull(container.containerId), eq(container.status, 'pending'))!;

export function serverHasLiveContainers(db: Queryable, id: string): boolean {
  return db.select({ id: container.id }).from(container).where(and(eq(container.serverId, id), stillPlaced)).limit(1).get() !== undefined;
}

/** The rows of containers once on the server and since removed (destroyed, or gone from the engine). */
export function deleteRemovedContainerRows(db: Queryable, id: string): void {
  db.delete(container).where(and(eq(container.serverId, id), not(stillPlaced))).run();
}

export function serverHasReplicas(db: Queryable, id: string): boolean {
  return db.select({ id: replica.id }).from(replica).where(eq(replica.serverId, id)).limit(1).get() !== undefined;
}

/** Projects naming the server as `options.defaultServerId` (a JSON reference the schema cannot guard). */
export function isServerProjectDefault(db: Queryable, organizationId: string, id: string): boolean {
  const row = db
    .select({ id: project.id })
    .from(project)
    .where(and(eq(project.organizationId, organizationId), eq(sql`json_extract(${project.options}, '$.defaultServerId')`, id)))
    .limit(1)
    .get();
  return row !== undefined;
}
