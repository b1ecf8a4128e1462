import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { type NewTag, type Tag, tag } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

const findTagStatement = (db: Queryable) => db.select().from(tag).where(eq(tag.id, sql.placeholder('id'))).prepare();

export function findTag(db: Queryable, id: string): Tag | undefined {
  return preparedOnce(db, findTagStatement).get({ id });
}

export function findTags(db: Queryable, ids: string[]): Tag[] {
  if (ids.length === 0) return [];
  return db.select().from(tag).where(inArray(tag.id, ids)).all();
}

export function listTagsOf(db: Queryable, organizationId: string, page: PageRequest): Page<Tag> {
  const { where, fetch, limit } = pageWindow(tag.id, page, eq(tag.organizationId, organizationId));
  return toPage(db.select().from(tag).where(where).orderBy(tag.id).limit(fetch).all(), limit);
}

/** Every tag name of an organization but one: names compare lower-cased in code (full Unicode). */
export function tagNamesOf(db: Queryable, organizationId: string, exceptId?: string): string[] {
  return db
    .select({ name: tag.name })
    .from(tag)
    .where(and(eq(tag.organizationId, organizationId), exceptId ? ne(tag.id, exceptId) : undefined))
    .all()
    .map((row) => row.name);
}

export function insertTag(db: Queryable, values: NewTag): Tag {
  return db.insert(tag).values(values).returning().get();
}

export function updateTagRow(db: Queryable, id: string, changes: Partial<NewTag>): Tag {
  return db.update(tag).set(changes).where(eq(tag.id, id)).returning().get()!;
}

export function deleteTagRow(db: Queryable, id: string): void {
  db.delete(tag).where(eq(tag.id, id)).run();
}
