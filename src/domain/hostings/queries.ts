import { and, eq, getTableColumns, inArray, ne, sql } from 'drizzle-orm';
import { type Hosting, hosting, hostname, ip, type NewHosting, tls } from '../../db/schema/index.ts';
import { organizationOfService } from '../services/queries.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export type OwnedHosting = Hosting & { organizationId: string };

const findHostingStatement = (db: Queryable) =>
  db
    .select({ ...getTableColumns(hosting), organizationId: organizationOfService(hosting.serviceId) })
    .from(hosting)
    .where(eq(hosting.id, sql.placeholder('id')))
    .prepare();

/** The hosting with the organization it routes for (through service, environment and project). */
export function findHosting(db: Queryable, id: string): OwnedHosting | undefined {
  return preparedOnce(db, findHostingStatement).get({ id });
}

export function listHostingsOf(db: Queryable, serviceId: string, page: PageRequest): Page<Hosting> {
  const { where, fetch, limit } = pageWindow(hosting.id, page, eq(hosting.serviceId, serviceId));
  return toPage(db.select().from(hosting).where(where).orderBy(hosting.id).limit(fetch).all(), limit);
}

export function findIp(db: Queryable, id: string) {
  return db.select({ organizationId: ip.organizationId, scope: ip.scope }).from(ip).where(eq(ip.id, id)).get();
}

export function findTls(db: Queryable, id: string) {
  return db.select({ organizationId: tls.organizationId }).from(tls).where(eq(tls.id, id)).get();
}

/** Which of `lowered` (lower-case hostnames) other hostings of the organization already route. */
export function hostnamesRoutedElsewhere(db: Queryable, organizationId: string, lowered: string[], hostingId?: string): Set<string> {
  if (lowered.length === 0) return new Set();
  const folded = sql<string>`lower(${hostname.hostname})`;
  const rows = db
    .select({ name: folded })
    .from(hostname)
    .where(
      and(
        eq(hostname.routingOrganizationId, organizationId),
        inArray(folded, lowered),
        hostingId ? ne(hostname.hostingId, hostingId) : undefined,
      ),
    )
    .all();
  return new Set(rows.map((row) => row.name));
}

export function insertHosting(db: Queryable, values: NewHosting): Hosting {
  return db.insert(hosting).values(values).returning().get();
}

export function updateHostingRow(db: Queryable, id: string, changes: Partial<NewHosting>): Hosting {
  return db.update(hosting).set(changes).where(eq(hosting.id, id)).returning().get()!;
}

/** The uniqueness mirror: one row per hostname of the hosting, rewritten whole. */
export function replaceHostnames(db: Queryable, hostingId: string, organizationId: string, names: string[]): void {
  db.delete(hostname).where(eq(hostname.hostingId, hostingId)).run();
  if (names.length === 0) return;
  db.insert(hostname)
    .values(names.map((name) => ({ hostingId, routingOrganizationId: organizationId, hostname: name })))
    .run();
}

export function deleteHostingRow(db: Queryable, id: string): void {
  db.delete(hosting).where(eq(hosting.id, id)).run();
}
