import { eq, getTableColumns } from 'drizzle-orm';
import { datacenter, type Marker, marker, type NewMarker, storage, type Tag, tag } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

/** The marker column naming each kind of taggable entity. */
export type MarkerEntityColumn = 'serverId' | 'workspaceId' | 'projectId' | 'environmentId' | 'serviceId' | 'datacenterId' | 'storageId';

export function datacenterOrganization(db: Queryable, id: string): string | undefined {
  return db.select({ organizationId: datacenter.organizationId }).from(datacenter).where(eq(datacenter.id, id)).get()?.organizationId;
}

export function storageOrganization(db: Queryable, id: string): string | undefined {
  return db.select({ organizationId: storage.organizationId }).from(storage).where(eq(storage.id, id)).get()?.organizationId;
}

/** The tags applied to one entity, ordered and paged by tag id. */
export function listTagsOfEntity(db: Queryable, column: MarkerEntityColumn, entityId: string, page: PageRequest): Page<Tag> {
  const { where, fetch, limit } = pageWindow(tag.id, page, eq(marker[column], entityId));
  const rows = db
    .select(getTableColumns(tag))
    .from(marker)
    .innerJoin(tag, eq(tag.id, marker.tagId))
    .where(where)
    .orderBy(tag.id)
    .limit(fetch)
    .all();
  return toPage(rows, limit);
}

export function listMarkersOfTag(db: Queryable, tagId: string, page: PageRequest): Page<Marker> {
  const { where, fetch, limit } = pageWindow(marker.id, page, eq(marker.tagId, tagId));
  return toPage(db.select().from(marker).where(where).orderBy(marker.id).limit(fetch).all(), limit);
}

/** Replaces the entity's whole tag set (the caller's transaction makes it atomic). */
export function replaceMarkers(db: Queryable, column: MarkerEntityColumn, entityId: string, tagIds: string[]): void {
  db.delete(marker).where(eq(marker[column], entityId)).run();
  if (tagIds.length === 0) return;
  db.insert(marker)
    .values(tagIds.map((tagId): NewMarker => ({ tagId, [column]: entityId })))
    .run();
}
