import { inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { organization } from '../../db/schema/index.ts';
import { type Actor, authorize, visibleOrganizationIds } from '../actor.ts';

export function listOrganizations(db: Db, actor: Actor) {
  const ids = visibleOrganizationIds(actor);
  if (ids.length === 0) return [];
  return db.select().from(organization).where(inArray(organization.id, ids)).orderBy(organization.id).all();
}

export function getOrganization(db: Db, actor: Actor, id: string) {
  authorize(actor, id, 'read', 'organization');
  return db.select().from(organization).where(inArray(organization.id, [id])).get()!;
}
