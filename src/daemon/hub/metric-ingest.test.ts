/**
 * Metrics through the hub: a server's host sample and its containers' samples become series (a
 * container row's series continues across recreated containers), another organization's
 * containers are refused, a flood is thinned to one sample per MIN_SAMPLE_GAP_MS, rollups average
 * (capacities keep their maximum), and each resolution stays within its age bound however long
 * the server reports.
 */
import { describe, expect, test } from 'bun:test';
import { and, eq, sql } from 'drizzle-orm';
import { metricPoint } from '../../db/schema/index.ts';
import { pointsOf, RETENTION_MS, seriesOf } from '../../domain/metrics/store.ts';
import { createOwner } from '../../../test/identity.ts';
import { observedWorld, slot } from '../../../test/observe.ts';
import { seedTree } from '../../../test/seed.ts';
import type { ContainerSample, HostSample } from '../../contract/daemon-protocol.ts';
import { metricKey, MIN_SAMPLE_GAP_MS } from './metric-ingest.ts';

const HOST: HostSample = { cpuCount: 4, cpu: 1, memoryUsed: 1_000, memoryTotal: 8_000, diskUsed: 10, diskTotal: 100, load1: 0.5, load5: 0.4, load15: 0.3 };
const sample = (claim: ReturnType<typeof slot>, values: Partial<ContainerSample> = {}): ContainerSample => ({
  ...claim,
  cpu: 0.25,
  memory: 500,
  memoryLimit: 1_000,
  netRx: 10,
  netTx: 20,
  blockRead: 1,
  blockWrite: 2,
  ...values,
});

describe('metric samples from a daemon', () => {
  test('the host goes to the server series, each container to its row series; live subscribers get the points', () => {
    const world = observedWorld();
    const { t, node, tree, row, send } = world;
    const live: unknown[] = [];
    t.hub.observe.metrics.live.add(metricKey.service(tree.serviceId), (points) => void live.push(...points));
    const at = t.clock.now().getTime();
    send({ type: 'metrics', at, host: HOST, containers: [sample(slot(tree.environmentId, tree.serviceId))] });
    const [server] = seriesOf(t.db, { serverIds: [node.id] });
    const [containerSeries] = seriesOf(t.db, { containerIds: [row.id] });
    expect(pointsOf(t.db, server!.id, 0, 0, at)).toEqual([
      expect.objectContaining({ at, cpu: 1, cpuCount: 4, memory: 1_000, memoryLimit: 8_000, diskUsed: 10, diskTotal: 100, load1: 0.5, netRx: null }),
    ]);
    expect(pointsOf(t.db, containerSeries!.id, 0, 0, at)).toEqual([expect.objectContaining({ at, cpu: 0.25, memory: 500, memoryLimit: 1_000, netRx: 10, blockWrite: 2, diskUsed: null })]);
    expect(live).toEqual([expect.objectContaining({ containerId: row.id, serviceId: tree.serviceId, point: expect.objectContaining({ cpu: 0.25 }) })]);
  });

  test("another organization's container is refused; a flood is thinned to one sample per gap; a future time is taken as now", () => {
    const world = observedWorld();
    const { t, node, tree, send } = world;
    const stranger = seedTree(t, createOwner(t).organizationId);
    const now = t.clock.now().getTime();
    send({ type: 'metrics', at: now + 3_600_000, host: HOST, containers: [sample(slot(stranger.environmentId, stranger.serviceId))] });
    for (let i = 1; i < 10; i++) {
      t.clock.advance(100);
      send({ type: 'metrics', at: now + i * 100, host: HOST, containers: [] });
    }
    t.clock.advance(MIN_SAMPLE_GAP_MS);
    send({ type: 'metrics', at: now + MIN_SAMPLE_GAP_MS, host: HOST, containers: [] });
    expect(seriesOf(t.db, { containerIds: [] })).toEqual([]);
    const [server] = seriesOf(t.db, { serverIds: [node.id] });
    expect(pointsOf(t.db, server!.id, 0, 0, now + 3_600_000).map((point) => point.at)).toEqual([now, now + MIN_SAMPLE_GAP_MS]);
    expect(t.db.select({ n: sql<number>`count(*)` }).from(metricPoint).get()!.n).toBe(2);
    expect(world.socket.closedWith).toBeNull();
  });

  test('rollups average each bucket; capacities keep their maximum', () => {
    const world = observedWorld();
    const { t, node, send } = world;
    const bucket = Math.ceil(t.clock.now().getTime() / 300_000) * 300_000;
    t.clock.advance(bucket - t.clock.now().getTime());
    for (const [i, cpu] of [1, 2, 3].entries()) {
      if (i > 0) t.clock.advance(60_000);
      send({ type: 'metrics', at: bucket + i * 60_000, host: { ...HOST, cpu, memoryTotal: 8_000 + i }, containers: [] });
    }
    t.hub.observe.metrics.maintain();
    const [server] = seriesOf(t.db, { serverIds: [node.id] });
    expect(pointsOf(t.db, server!.id, 300, 0, bucket + 300_000)).toEqual([expect.objectContaining({ at: bucket, cpu: 2, memoryLimit: 8_002, memory: 1_000 })]);
    expect(pointsOf(t.db, server!.id, 3600, 0, bucket + 300_000)).toEqual([expect.objectContaining({ at: Math.floor(bucket / 3_600_000) * 3_600_000, cpu: 2 })]);
  });

  test('bounded: after 95 days of samples, each resolution holds only its own age span', () => {
    const world = observedWorld();
    const { t, node, send } = world;
    const step = 3_600_000;
    for (let i = 0; i < (95 * 86_400_000) / step; i++) {
      t.clock.advance(step);
      send({ type: 'metrics', at: t.clock.now().getTime(), host: HOST, containers: [] });
      t.hub.observe.metrics.maintain();
    }
    const now = t.clock.now().getTime();
    const [server] = seriesOf(t.db, { serverIds: [node.id] });
    for (const resolution of [0, 300, 3600] as const) {
      const points = t.db
        .select({ at: metricPoint.at })
        .from(metricPoint)
        .where(and(eq(metricPoint.seriesId, server!.id), eq(metricPoint.resolution, resolution)))
        .all();
      expect(points.length).toBeGreaterThan(0);
      expect(Math.min(...points.map((point) => point.at))).toBeGreaterThanOrEqual(now - RETENTION_MS[resolution]);
    }
    // Raw: one an hour for a day; 5-minute: one per sample for 7 days; hourly: one per hour for 90 days.
    const count = (resolution: number) =>
      t.db.select({ n: sql<number>`count(*)` }).from(metricPoint).where(and(eq(metricPoint.seriesId, server!.id), eq(metricPoint.resolution, resolution))).get()!.n;
    expect(count(0)).toBeLessThanOrEqual(25);
    expect(count(300)).toBeLessThanOrEqual(7 * 24 + 1);
    expect(count(3600)).toBeLessThanOrEqual(90 * 24 + 1);
  }, 120_000);
});

describe('watching', () => {
  test('the first watcher of a server asks its daemon for 10 s samples, the last one leaving for 60 s', () => {
    const world = observedWorld();
    const { t, node, socket } = world;
    const stopA = t.hub.observe.watch([node.id]);
    const stopB = t.hub.observe.watch([node.id, node.id]);
    stopA();
    expect(socket.framesOf('watch')).toEqual([{ type: 'watch', metricsIntervalMs: 10_000 }]);
    stopB();
    stopB();
    expect(socket.framesOf('watch')).toEqual([
      { type: 'watch', metricsIntervalMs: 10_000 },
      { type: 'watch', metricsIntervalMs: 60_000 },
    ]);
  });
});
