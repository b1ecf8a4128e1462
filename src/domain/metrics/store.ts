/**
 * Resource history: series (a server, or a container row) and their points at three resolutions
 * (src/db/schema/metric.ts). Raw samples are written as they arrive; the rollup averages them
 * into 5-minute buckets and those into 1-hour buckets, recomputing the recent buckets each run
 * (late samples land in their bucket; the current bucket is visible before it ends); the prune
 * keeps each resolution within its age bound. The bounds make a series' size finite: at most
 * 24 h of raw samples (8,640 at the watched 10 s), 2,016 five-minute and 2,160 hourly points.
 */
import { and, eq, gte, inArray, lt, lte, sql } from 'drizzle-orm';
import { container, type MetricPoint, metricPoint, type MetricResolution, metricSeries } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';

/** How long each resolution is kept. */
export const RETENTION_MS: Record<MetricResolution, number> = { 0: 86_400_000, 300: 7 * 86_400_000, 3600: 90 * 86_400_000 };
/** Which resolution each rollup reads. */
const ROLLUPS: [to: 300 | 3600, from: MetricResolution][] = [
  [300, 0],
  [3600, 300],
];

export type PointValues = Omit<MetricPoint, 'seriesId' | 'resolution' | 'at'>;
export const VALUE_COLUMNS = ['cpu', 'cpuCount', 'memory', 'memoryLimit', 'netRx', 'netTx', 'blockRead', 'blockWrite', 'diskUsed', 'diskTotal', 'load1', 'load5', 'load15'] as const;
/** Averaged in a bucket, except the capacities, whose maximum is kept. */
const MAXIMA = new Set(['cpu_count', 'memory_limit', 'disk_total']);
const SQL_COLUMNS = ['cpu', 'cpu_count', 'memory', 'memory_limit', 'net_rx', 'net_tx', 'block_read', 'block_write', 'disk_used', 'disk_total', 'load1', 'load5', 'load15'];

/** The series of a server or a container row, created on first use. */
export function seriesId(db: Queryable, organizationId: string, subject: { serverId: string } | { containerId: string }): number {
  const where = 'serverId' in subject ? eq(metricSeries.serverId, subject.serverId) : eq(metricSeries.containerId, subject.containerId);
  const found = db.select({ id: metricSeries.id }).from(metricSeries).where(where).get();
  if (found) return found.id;
  return db
    .insert(metricSeries)
    .values({ organizationId, serverId: 'serverId' in subject ? subject.serverId : null, containerId: 'containerId' in subject ? subject.containerId : null })
    .returning({ id: metricSeries.id })
    .get().id;
}

const insertStatement = (db: Queryable) =>
  db
    .insert(metricPoint)
    .values({
      seriesId: sql.placeholder('seriesId'),
      resolution: 0,
      at: sql.placeholder('at'),
      ...Object.fromEntries(VALUE_COLUMNS.map((column) => [column, sql.placeholder(column)])),
    })
    .onConflictDoNothing()
    .prepare();

export function insertSample(db: Queryable, series: number, at: number, values: Partial<PointValues>): void {
  const row: Record<string, unknown> = { seriesId: series, at };
  for (const column of VALUE_COLUMNS) row[column] = values[column] ?? null;
  preparedOnce(db, insertStatement).run(row);
}

/**
 * Recomputes the buckets of each rollup that overlap [now - 2 buckets, now], series by series so
 * every read is a range of the primary key.
 */
export function rollup(db: Queryable, now: number): void {
  const values = SQL_COLUMNS.map((column) => `${MAXIMA.has(column) ? 'max' : 'avg'}(${column})`).join(', ');
  for (const { id } of db.select({ id: metricSeries.id }).from(metricSeries).all()) {
    for (const [to, from] of ROLLUPS) {
      const size = to * 1000;
      const start = Math.floor(now / size) * size - 2 * size;
      db.run(
        sql.raw(
          `INSERT OR REPLACE INTO metric_point (series_id, resolution, at, ${SQL_COLUMNS.join(', ')}) ` +
            `SELECT series_id, ${to}, (at / ${size}) * ${size} AS bucket, ${values} FROM metric_point ` +
            `WHERE series_id = ${Math.trunc(id)} AND resolution = ${from} AND at >= ${start} AND at <= ${Math.floor(now)} GROUP BY bucket`,
        ),
      );
    }
  }
}

/** Drops points older than their resolution's retention, series by series (each a key range). */
export function prunePoints(db: Queryable, now: number): void {
  for (const { id } of db.select({ id: metricSeries.id }).from(metricSeries).all()) {
    for (const resolution of [0, 300, 3600] as const) {
      db.delete(metricPoint)
        .where(and(eq(metricPoint.seriesId, id), eq(metricPoint.resolution, resolution), lt(metricPoint.at, now - RETENTION_MS[resolution])))
        .run();
    }
  }
}

/** The resolution a chart of [since, until] reads: raw up to 6 hours, 5-minute up to 7 days, else hourly. */
export function resolutionFor(since: number, until: number): MetricResolution {
  const span = until - since;
  return span <= 6 * 3_600_000 ? 0 : span <= 7 * 86_400_000 ? 300 : 3600;
}

export interface SeriesKey {
  id: number;
  serverId: string | null;
  containerId: string | null;
}

/** The series of these servers or container rows. */
export function seriesOf(db: Queryable, subject: { serverIds?: readonly string[]; containerIds?: readonly string[] }): SeriesKey[] {
  const servers = subject.serverIds?.length ? db.select().from(metricSeries).where(inArray(metricSeries.serverId, [...subject.serverIds])).all() : [];
  const containers = subject.containerIds?.length ? db.select().from(metricSeries).where(inArray(metricSeries.containerId, [...subject.containerIds])).all() : [];
  return [...servers, ...containers].map(({ id, serverId, containerId }) => ({ id, serverId, containerId }));
}

export function pointsOf(db: Queryable, series: number, resolution: MetricResolution, since: number, until: number): MetricPoint[] {
  return db
    .select()
    .from(metricPoint)
    .where(and(eq(metricPoint.seriesId, series), eq(metricPoint.resolution, resolution), gte(metricPoint.at, since), lte(metricPoint.at, until)))
    .orderBy(metricPoint.at)
    .all();
}

/** The container rows of some services, with their slot (for series labels). */
export function containersOfServices(db: Queryable, serviceIds: readonly string[]) {
  if (serviceIds.length === 0) return [];
  return db
    .select({ id: container.id, serviceId: container.serviceId, serverId: container.serverId, ordinal: container.ordinal, role: container.role, containerName: container.containerName, composeServiceName: container.composeServiceName })
    .from(container)
    .where(inArray(container.serviceId, [...serviceIds]))
    .all();
}
