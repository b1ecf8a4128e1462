/**
 * Metric series as the API answers them: the target is checked like any read (another
 * organization's server, container, service or environment is 404), then one series per server
 * or per container row, labelled for a chart.
 */
import type { MetricPoint, MetricResolution } from '../../db/schema/index.ts';
import { DomainError, notFound } from '../../lib/errors.ts';
import { type Actor, authorize } from '../actor.ts';
import { loadTarget, targetOf } from '../logs/targets.ts';
import { findServer } from '../servers/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { containersOfServices, pointsOf, resolutionFor, seriesOf } from './store.ts';

export interface SeriesOut {
  serverId: string | null;
  containerId: string | null;
  serviceId: string | null;
  ordinal: number | null;
  name: string;
  points: MetricPoint[];
}

export interface MetricTargetQuery {
  serverId?: string;
  containerId?: string;
  serviceId?: string;
  environmentId?: string;
}

/** The servers and container rows a query names, after the access check. */
export function metricSubjects(db: Queryable, actor: Actor, query: MetricTargetQuery) {
  if (query.serverId !== undefined) {
    if (query.containerId !== undefined || query.serviceId !== undefined || query.environmentId !== undefined) {
      throw new DomainError('validation_failed', 'name exactly one of serverId, containerId, serviceId and environmentId', 'serverId');
    }
    const server = findServer(db, query.serverId);
    if (!server) throw notFound('server');
    authorize(actor, server.organizationId, 'read', 'server');
    return { organizationId: server.organizationId, servers: [{ id: server.id, name: server.name }], containers: [], serviceIds: [] as string[] };
  }
  const target = loadTarget(db, actor, targetOf(query));
  const containers = containersOfServices(db, target.serviceIds).filter((row) => !target.containerId || row.id === target.containerId);
  return { organizationId: target.organizationId, servers: [], containers, serviceIds: target.serviceIds };
}

export function loadMetricSeries(db: Queryable, actor: Actor, query: MetricTargetQuery, since: number, until: number): { resolution: MetricResolution; series: SeriesOut[] } {
  const subjects = metricSubjects(db, actor, query);
  const resolution = resolutionFor(since, until);
  const keys = seriesOf(db, { serverIds: subjects.servers.map((s) => s.id), containerIds: subjects.containers.map((c) => c.id) });
  const series: SeriesOut[] = [];
  for (const key of keys) {
    const points = pointsOf(db, key.id, resolution, since, until);
    if (key.serverId) {
      const server = subjects.servers.find((s) => s.id === key.serverId)!;
      series.push({ serverId: server.id, containerId: null, serviceId: null, ordinal: null, name: server.name, points });
    } else {
      const row = subjects.containers.find((c) => c.id === key.containerId)!;
      series.push({ serverId: null, containerId: row.id, serviceId: row.serviceId, ordinal: row.ordinal, name: row.containerName, points });
    }
  }
  return { resolution, series };
}
