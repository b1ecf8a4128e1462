/**
 * log_chunk — retained container log history (issue 19). The hub gathers each container's lines
 * for about a second (or up to a chunk's size) and writes them as one row: per-line rows would
 * cost their keys and index entries many times over. History belongs to the service (it outlives
 * redeploys and recreated containers) and is bounded per organization, oldest chunk first, by
 * size and age (src/domain/logs/store.ts).
 *
 * `body` is JSON: [[epoch ms, stream, text], ...] oldest first; stream 0 stdout, 1 stderr, 2 a
 * marker of Panel's own (lines dropped by sampling).
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { container } from './container.ts';
import { organization } from './organization.ts';
import { service } from './service.ts';

export const logChunk = sqliteTable(
  'log_chunk',
  {
    id: integer('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    serviceId: text('service_id')
      .notNull()
      .references(() => service.id, { onDelete: 'cascade' }),
    /** The container row (its slot: service, role, ordinal); cleared if that row is deleted. */
    containerId: text('container_id').references(() => container.id, { onDelete: 'set null' }),
    ordinal: integer('ordinal').notNull(),
    containerName: text('container_name').notNull(),
    firstAt: integer('first_at').notNull(),
    lastAt: integer('last_at').notNull(),
    lineCount: integer('line_count').notNull(),
    /** Bytes of `body`: what the organization's size bound counts. */
    bytes: integer('bytes').notNull(),
    body: text('body').notNull(),
  },
  (t) => [
    check('log_chunk_times_ordered', sql`${t.firstAt} <= ${t.lastAt}`),
    check('log_chunk_body_is_json_array', sql`json_valid(${t.body}) AND json_type(${t.body}) = 'array'`),
    index('log_chunk_service_id_last_at_index').on(t.serviceId, t.lastAt),
    // Retention walks an organization's chunks oldest first by time (the rowid breaks ties).
    index('log_chunk_organization_id_last_at_index').on(t.organizationId, t.lastAt),
    index('log_chunk_container_id_index').on(t.containerId),
  ],
);

export type LogChunk = typeof logChunk.$inferSelect;
