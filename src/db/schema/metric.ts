/**
 * metric_series and metric_point — resource history (issue 19). A series is one server (its
 * host figures) or one container row (its slot, so a redeployed or recreated container continues
 * its series). Points are kept at three resolutions, each bounded by age
 * (src/domain/metrics/retention.ts): raw samples (every 10 or 60 s), 5-minute and 1-hour
 * averages. CPU is in cores, memory and disk in bytes, network and block I/O in bytes per second.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { container } from './container.ts';
import { organization } from './organization.ts';
import { server } from './server.ts';
import { metricResolutions } from '../../contract/enums.ts';


export const metricSeries = sqliteTable(
  'metric_series',
  {
    id: integer('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** Set for a server's own series. */
    serverId: text('server_id').references(() => server.id, { onDelete: 'cascade' }),
    /** Set for a container's series. */
    containerId: text('container_id').references(() => container.id, { onDelete: 'cascade' }),
  },
  (t) => [
    check('metric_series_one_subject', sql`(${t.serverId} IS NULL) <> (${t.containerId} IS NULL)`),
    uniqueIndex('metric_series_server_id_unique').on(t.serverId).where(sql`${t.serverId} IS NOT NULL`),
    uniqueIndex('metric_series_container_id_unique').on(t.containerId).where(sql`${t.containerId} IS NOT NULL`),
    index('metric_series_organization_id_index').on(t.organizationId),
  ],
);

export const metricPoint = sqliteTable(
  'metric_point',
  {
    seriesId: integer('series_id')
      .notNull()
      .references(() => metricSeries.id, { onDelete: 'cascade' }),
    resolution: integer('resolution').notNull(),
    /** Epoch milliseconds: the sample's time, or the start of an averaged bucket. */
    at: integer('at').notNull(),
    cpu: real('cpu'),
    /** Servers only: how many CPUs `cpu` is out of. */
    cpuCount: real('cpu_count'),
    memory: real('memory'),
    /** A container's limit (null: none), a server's total memory. */
    memoryLimit: real('memory_limit'),
    netRx: real('net_rx'),
    netTx: real('net_tx'),
    blockRead: real('block_read'),
    blockWrite: real('block_write'),
    diskUsed: real('disk_used'),
    diskTotal: real('disk_total'),
    load1: real('load1'),
    load5: real('load5'),
    load15: real('load15'),
  },
  (t) => [
    primaryKey({ columns: [t.seriesId, t.resolution, t.at] }),
    check('metric_point_resolution_is_valid', sql`${t.resolution} IN (${sql.raw(metricResolutions.join(', '))})`),
  ],
);

export type MetricSeries = typeof metricSeries.$inferSelect;
export type MetricPoint = typeof metricPoint.$inferSelect;
