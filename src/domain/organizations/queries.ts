import { eq, inArray, sql } from 'drizzle-orm';
import { type NewOrganization, type Organization, organization } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

const findOrganizationStatement = (db: Queryable) => db.select().from(organization).where(eq(organization.id, sql.placeholder('id'))).prepare();

export function findOrganization(db: Queryable, id: string): Organization | undefined {
  return preparedOnce(db, findOrganizationStatement).get({ id });
}

export function listOrganizationsIn(db: Queryable, ids: string[], page: PageRequest): Page<Organization> {
  const { where, fetch, limit } = pageWindow(organization.id, page, inArray(organization.id, ids));
  return toPage(db.select().from(organization).where(where).orderBy(organization.id).limit(fetch).all(), limit);
}

/** Every organization, for superadmins. */
export function listAllOrganizations(db: Queryable, page: PageRequest): Page<Organization> {
  const { where, fetch, limit } = pageWindow(organization.id, page);
  return toPage(db.select().from(organization).where(where).orderBy(organization.id).limit(fetch).all(), limit);
}

export function updateOrganizationRow(db: Queryable, id: string, changes: Partial<NewOrganization>): Organization {
  return db.update(organization).set(changes).where(eq(organization.id, id)).returning().get()!;
}
