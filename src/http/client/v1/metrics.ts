/**
 * Resource series (issue 19): a server's own (CPU, memory, disk, load) or the containers of a
 * container row, a service or an environment (CPU, memory and its limit, network and block I/O).
 *   GET /metrics?serverId|containerId|serviceId|environmentId=&since=&until=
 * The resolution follows the span (raw up to 6 hours, 5-minute averages up to 7 days, hourly
 * beyond). Live points come over /ws/client/v1 (topic `metrics`), which also makes the daemon
 * sample every 10 s instead of 60 s while someone watches.
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { MetricPoint } from '../../../db/schema/index.ts';
import { loadMetricSeries } from '../../../domain/metrics/service.ts';
import { DomainError } from '../../../lib/errors.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses, Uuid } from '../../schemas.ts';
import { IsoTime, TargetQuery } from './logs.ts';

const DAY_MS = 86_400_000;

const MetricsQuery = v.object({ serverId: v.optional(Uuid), ...TargetQuery, since: v.optional(IsoTime), until: v.optional(IsoTime) });

const nullableNumber = v.nullable(v.number());
export const MetricPointSchema = v.object({
  at: v.string(),
  /** Cores busy (a server: of cpuCount). */
  cpu: nullableNumber,
  cpuCount: nullableNumber,
  /** Bytes in use; memoryLimit is a container's limit (null: none) or a server's total. */
  memory: nullableNumber,
  memoryLimit: nullableNumber,
  /** Bytes per second. */
  netRx: nullableNumber,
  netTx: nullableNumber,
  blockRead: nullableNumber,
  blockWrite: nullableNumber,
  /** Servers: bytes of the file system holding Docker's data. */
  diskUsed: nullableNumber,
  diskTotal: nullableNumber,
  load1: nullableNumber,
  load5: nullableNumber,
  load15: nullableNumber,
});

const SeriesSchema = v.object({
  serverId: v.nullable(v.string()),
  containerId: v.nullable(v.string()),
  serviceId: v.nullable(v.string()),
  ordinal: v.nullable(v.number()),
  name: v.string(),
  points: v.array(MetricPointSchema),
});

export const presentPoint = (point: Omit<MetricPoint, 'seriesId' | 'resolution'>) => ({
  at: new Date(point.at).toISOString(),
  cpu: point.cpu,
  cpuCount: point.cpuCount,
  memory: point.memory,
  memoryLimit: point.memoryLimit,
  netRx: point.netRx,
  netTx: point.netTx,
  blockRead: point.blockRead,
  blockWrite: point.blockWrite,
  diskUsed: point.diskUsed,
  diskTotal: point.diskTotal,
  load1: point.load1,
  load5: point.load5,
  load15: point.load15,
});

export const metricRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/metrics', detail: { tags: ['metrics'] } }).use(clientGuard(deps)).get(
    '/',
    ({ actor, query }) => {
      const until = query.until ?? deps.clock.now().getTime();
      const since = query.since ?? until - 3_600_000;
      if (since > until) throw new DomainError('validation_failed', 422, 'since must not be after until', 'since');
      if (until - since > 90 * DAY_MS) throw new DomainError('validation_failed', 422, 'a span of at most 90 days', 'since');
      const { resolution, series } = loadMetricSeries(deps.db, actor, query, since, until);
      return { since: new Date(since).toISOString(), until: new Date(until).toISOString(), resolution, series: series.map((s) => ({ ...s, points: s.points.map(presentPoint) })) };
    },
    {
      query: MetricsQuery,
      response: {
        200: v.object({ since: v.string(), until: v.string(), resolution: v.picklist([0, 300, 3600]), series: v.array(SeriesSchema) }),
        ...errorResponses(401, 404, 422),
      },
      detail: {
        summary: 'Read resource series of a server, a container, a service or an environment',
        description:
          'Exactly one of serverId, containerId, serviceId and environmentId. since/until default to the last hour (span at most 90 days). ' +
          '`resolution` is the seconds per point: 0 raw samples (span up to 6 h), 300 (up to 7 days), 3600 beyond.',
      },
    },
  );
