import { and, eq, getTableColumns, gt, type SQLWrapper, sql } from 'drizzle-orm';
import {
  binding,
  container,
  hosting,
  type NewService,
  organization,
  type Service,
  service,
  tenancy,
} from '../../db/schema/index.ts';
import { organizationOfEnvironment } from '../environments/queries.ts';
import { preparedOnce, type Queryable, rowDecoder } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export type OwnedService = Service & { organizationId: string };

/** The organization owning the service `serviceId` (a column or expression), as a scalar subquery. */
export const organizationOfService = (serviceId: SQLWrapper) =>
  organizationOfEnvironment(sql`(select ${service.environmentId} from ${service} where ${service.id} = ${serviceId})`);

const serviceFields = getTableColumns(service);
const ownedServiceFields = { ...serviceFields, organizationId: organizationOfEnvironment(service.environmentId) };
const decodeService = rowDecoder(serviceFields);
const decodeOwnedService = rowDecoder(ownedServiceFields);

const findServiceStatement = (db: Queryable) =>
  db.select(ownedServiceFields).from(service).where(eq(service.id, sql.placeholder('id'))).prepare();

/** The service with the organization of its project; reading a service is the hottest client read. */
export function findService(db: Queryable, id: string): OwnedService | undefined {
  const [values] = preparedOnce(db, findServiceStatement).values({ id });
  return values && decodeOwnedService(values);
}

const listStatement = (withCursor: boolean) => (db: Queryable) =>
  db
    .select(serviceFields)
    .from(service)
    .where(
      and(eq(service.environmentId, sql.placeholder('environmentId')), withCursor ? gt(service.id, sql.placeholder('cursor')) : undefined),
    )
    .orderBy(service.id)
    .limit(sql.placeholder('fetch'))
    .prepare();
const firstPageStatement = listStatement(false);
const nextPageStatement = listStatement(true);

/** Listing an environment's services is a hot read too: both page shapes are prepared. */
export function listServicesOf(db: Queryable, environmentId: string, page: PageRequest): Page<Service> {
  const { fetch, limit } = pageWindow(service.id, page);
  const statement = preparedOnce(db, page.cursor ? nextPageStatement : firstPageStatement);
  return toPage(statement.values({ environmentId, cursor: page.cursor, fetch }).map(decodeService), limit);
}

export function isDeployHooksEnabled(db: Queryable, organizationId: string): boolean {
  const row = db.select({ enabled: organization.isDeployHooksEnabled }).from(organization).where(eq(organization.id, organizationId)).get();
  return row?.enabled === true;
}

const exists = (db: Queryable, table: typeof binding | typeof tenancy | typeof hosting | typeof container, serviceId: string) =>
  db.select({ id: table.id }).from(table).where(eq(table.serviceId, serviceId)).limit(1).get() !== undefined;

export const serviceHasBindings = (db: Queryable, id: string) => exists(db, binding, id);
export const serviceHasTenancies = (db: Queryable, id: string) => exists(db, tenancy, id);
export const serviceHasHostings = (db: Queryable, id: string) => exists(db, hosting, id);
export const serviceHasContainers = (db: Queryable, id: string) => exists(db, container, id);

export function updateServiceRow(db: Queryable, id: string, changes: Partial<NewService>): Service {
  return db.update(service).set(changes).where(eq(service.id, id)).returning().get()!;
}

export function deleteServiceRow(db: Queryable, id: string): void {
  db.delete(service).where(eq(service.id, id)).run();
}
