/**
 * Reading the events feed (newest first: a feed is read from the top) and keeping it bounded:
 * per organization at most MAX_EVENTS_PER_ORGANIZATION events and none older than
 * MAX_EVENT_AGE_MS, oldest first.
 */
import { and, desc, eq, like, lt, lte, sql } from 'drizzle-orm';
import { type Event, event, organization } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page } from '../shared/pagination.ts';

export const MAX_EVENTS_PER_ORGANIZATION = 10_000;
export const MAX_EVENT_AGE_MS = 90 * 86_400_000;

export interface EventFilter {
  organizationId: string;
  /** A kind (`deployment.failed`) or a family (`deployment`). */
  kind?: string;
  serverId?: string;
  environmentId?: string;
  serviceId?: string;
}

export function listEventsOf(db: Queryable, filter: EventFilter, page: { limit?: number; cursor?: string }): Page<Event> {
  const limit = Math.min(Math.max(page.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const kind = filter.kind === undefined ? undefined : filter.kind.includes('.') ? eq(event.kind, filter.kind) : like(event.kind, `${filter.kind}.%`);
  const rows = db
    .select()
    .from(event)
    .where(
      and(
        eq(event.organizationId, filter.organizationId),
        kind,
        filter.serverId ? eq(event.serverId, filter.serverId) : undefined,
        filter.environmentId ? eq(event.environmentId, filter.environmentId) : undefined,
        filter.serviceId ? eq(event.serviceId, filter.serviceId) : undefined,
        page.cursor ? lt(event.id, page.cursor) : undefined,
      ),
    )
    .orderBy(desc(event.id))
    .limit(limit + 1)
    .all();
  if (rows.length <= limit) return { data: rows, nextCursor: null };
  const data = rows.slice(0, limit);
  return { data, nextCursor: data[limit - 1]!.id };
}

/** Drops what is beyond the bounds; answers how many events went. */
export function pruneEvents(db: Queryable, now: Date): number {
  let removed = db.delete(event).where(lte(event.createdAt, new Date(now.getTime() - MAX_EVENT_AGE_MS))).returning({ id: event.id }).all().length;
  for (const { id } of db.select({ id: organization.id }).from(organization).all()) {
    const cutoff = db
      .select({ id: event.id })
      .from(event)
      .where(eq(event.organizationId, id))
      .orderBy(desc(event.id))
      .limit(1)
      .offset(MAX_EVENTS_PER_ORGANIZATION)
      .get();
    if (cutoff) removed += db.delete(event).where(and(eq(event.organizationId, id), lte(event.id, cutoff.id))).returning({ id: event.id }).all().length;
  }
  return removed;
}

/** Events of an organization (tests and diagnostics). */
export const countEvents = (db: Queryable, organizationId: string): number =>
  db.select({ n: sql<number>`count(*)` }).from(event).where(eq(event.organizationId, organizationId)).get()!.n;
