/**
 * Metrics arriving from daemons (`metrics` frames): the host sample goes to the server's series,
 * each container sample (checked like log lines, slots.ts) to its container row's series; live
 * subscribers get them at once. A series takes at most one raw sample per MIN_SAMPLE_GAP_MS,
 * whatever a daemon sends, so storage stays within src/domain/metrics/store.ts's bounds.
 *
 * Who watches: subscriptions count per server; while a server has watchers its daemon samples
 * every 10 s, else every 60 s (`watch` frames, sent by the hub on each change and at hello).
 */
import type { MetricPoint } from '../../db/schema/index.ts';
import { insertSample, type PointValues, prunePoints, rollup, seriesId } from '../../domain/metrics/store.ts';
import type { Queryable } from '../../domain/shared/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { MetricsFrame } from '../../contract/daemon-protocol.ts';
import { Listeners } from './feed.ts';
import type { DaemonOf } from '../../domain/daemons/outcomes.ts';
import { SlotResolver } from './slots.ts';

export const MIN_SAMPLE_GAP_MS = 5_000;

/** A point as subscribers get it: which series (server or container row) and its values. */
export interface LivePoint {
  serverId: string | null;
  containerId: string | null;
  serviceId: string | null;
  environmentId: string | null;
  point: Omit<MetricPoint, 'seriesId' | 'resolution'>;
}

export const metricKey = {
  server: (id: string) => `server:${id}`,
  service: (id: string) => `service:${id}`,
  environment: (id: string) => `environment:${id}`,
  container: (id: string) => `container:${id}`,
};

const EMPTY: PointValues = { cpu: null, cpuCount: null, memory: null, memoryLimit: null, netRx: null, netTx: null, blockRead: null, blockWrite: null, diskUsed: null, diskTotal: null, load1: null, load5: null, load15: null };

export interface MetricIngestOptions {
  db: Queryable;
  logger: Logger;
  now: () => number;
}

export class MetricIngest {
  readonly live: Listeners<LivePoint[]>;
  private readonly slots: SlotResolver;
  private readonly series = new Map<string, number>();
  private readonly lastSample = new Map<number, number>();
  readonly stats = { samples: 0, skipped: 0 };

  constructor(private readonly options: MetricIngestOptions) {
    this.slots = new SlotResolver(options.db, options.now);
    this.live = new Listeners((error) => options.logger.error('metric listener failed', { error: String(error) }));
  }

  private seriesOf(organizationId: string, subject: { serverId: string } | { containerId: string }): number {
    const key = 'serverId' in subject ? `s:${subject.serverId}` : `c:${subject.containerId}`;
    let id = this.series.get(key);
    if (id === undefined) this.series.set(key, (id = seriesId(this.options.db, organizationId, subject)));
    return id;
  }

  /** Writes the sample unless its series had one moments ago; answers whether it was kept. */
  private keep(organizationId: string, subject: { serverId: string } | { containerId: string }, at: number, values: PointValues): boolean {
    let series = this.seriesOf(organizationId, subject);
    const last = this.lastSample.get(series);
    if (last !== undefined && Math.abs(at - last) < MIN_SAMPLE_GAP_MS) {
      this.stats.skipped++;
      return false;
    }
    try {
      insertSample(this.options.db, series, at, values);
    } catch {
      // The series went with its server or container row since it was cached: make it again.
      this.series.clear();
      series = this.seriesOf(organizationId, subject);
      insertSample(this.options.db, series, at, values);
    }
    this.lastSample.set(series, at);
    this.stats.samples++;
    return true;
  }

  ingest(daemon: DaemonOf, frame: MetricsFrame): void {
    const { db } = this.options;
    // A daemon's clock may be off; a sample from the future would sit past every retention bound.
    const at = Math.min(frame.at, this.options.now());
    const published: LivePoint[] = [];
    db.transaction(() => {
      const host = frame.host;
      const hostValues = { ...EMPTY, cpu: host.cpu, cpuCount: host.cpuCount, memory: host.memoryUsed, memoryLimit: host.memoryTotal, diskUsed: host.diskUsed, diskTotal: host.diskTotal, load1: host.load1, load5: host.load5, load15: host.load15 };
      if (this.keep(daemon.organizationId, { serverId: daemon.serverId }, at, hostValues)) {
        published.push({ serverId: daemon.serverId, containerId: null, serviceId: null, environmentId: null, point: { at, ...hostValues } });
      }
      for (const sample of frame.containers) {
        const slot = this.slots.resolve(daemon, sample);
        if (!slot?.containerRowId) continue;
        const values = { ...EMPTY, cpu: sample.cpu, memory: sample.memory, memoryLimit: sample.memoryLimit, netRx: sample.netRx, netTx: sample.netTx, blockRead: sample.blockRead, blockWrite: sample.blockWrite };
        if (!this.keep(slot.organizationId, { containerId: slot.containerRowId }, at, values)) continue;
        published.push({ serverId: null, containerId: slot.containerRowId, serviceId: slot.serviceId, environmentId: slot.environmentId, point: { at, ...values } });
      }
    });
    this.publish(daemon.serverId, published);
  }

  private publish(serverId: string, points: LivePoint[]): void {
    const byKey = new Map<string, LivePoint[]>();
    const add = (key: string, point: LivePoint) => {
      if (!this.live.has(key)) return;
      const list = byKey.get(key);
      if (list) list.push(point);
      else byKey.set(key, [point]);
    };
    for (const point of points) {
      if (point.serverId) add(metricKey.server(serverId), point);
      if (point.containerId) add(metricKey.container(point.containerId), point);
      if (point.serviceId) add(metricKey.service(point.serviceId), point);
      if (point.environmentId) add(metricKey.environment(point.environmentId), point);
    }
    for (const [key, list] of byKey) this.live.publish(key, list);
  }

  /** Rollup and retention (the hub runs it every minute). */
  maintain(): void {
    const now = this.options.now();
    this.options.db.transaction((tx) => {
      rollup(tx, now);
      prunePoints(tx, now);
    });
    // Forget what deleted rows left behind (their series cascaded away).
    if (this.lastSample.size > 50_000) this.lastSample.clear();
    if (this.series.size > 50_000) this.series.clear();
  }
}
