/**
 * Resource series (issue 19): a server's own (CPU, memory, disk, load) or the containers of a
 * container row, a service or an environment (CPU, memory and its limit, network and block I/O).
 *   GET /metrics?serverId|containerId|serviceId|environmentId=&since=&until=
 * The resolution follows the span (raw up to 6 hours, 5-minute averages up to 7 days, hourly
 * beyond). Live points come over /ws/client/v1 (topic `metrics`), which also makes the daemon
 * sample every 10 s instead of 60 s while someone watches.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { MetricsAnswer, MetricsQuery } from '../../../contract/metrics.ts';
import type { MetricPoint } from '../../../db/schema/index.ts';
import { loadMetricSeries } from '../../../domain/metrics/service.ts';
import { DomainError } from '../../../lib/errors.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses } from '../../schemas.ts';

const DAY_MS = 86_400_000;

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
      if (since > until) throw new DomainError('validation_failed', 'since must not be after until', 'since');
      if (until - since > 90 * DAY_MS) throw new DomainError('validation_failed', 'a span of at most 90 days', 'since');
      const { resolution, series } = loadMetricSeries(deps.db, actor, query, since, until);
      return { since: new Date(since).toISOString(), until: new Date(until).toISOString(), resolution, series: series.map((s) => ({ ...s, points: s.points.map(presentPoint) })) };
    },
    {
      query: MetricsQuery,
      response: { 200: MetricsAnswer, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      role: 'member',
      detail: {
        summary: 'Read resource series of a server, a container, a service or an environment',
        description:
          'Exactly one of serverId, containerId, serviceId and environmentId. since/until default to the last hour (span at most 90 days). ' +
          '`resolution` is the seconds per point: 0 raw samples (span up to 6 h), 300 (up to 7 days), 3600 beyond.',
      },
    },
  );
