/**
 * Container logs through the hub: only a daemon's own organization's services take its lines,
 * history belongs to the service (redeploys and recreated containers continue it), sampled-away
 * lines leave a marker, live subscribers see lines at once, and the organization's bounds (size
 * and age) hold, oldest first.
 */
import { describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { logChunk, organization } from '../../db/schema/index.ts';
import { pageBackward } from '../../domain/logs/query.ts';
import { createTestApp } from '../../../test/harness.ts';
import { lines, logsFrame, observedWorld, slot } from '../../../test/observe.ts';
import { seedTree } from '../../../test/seed.ts';
import { createOwner } from '../../../test/identity.ts';
import { CHUNK_AGE_MS } from './log-ingest.ts';
import { liveKey, type LiveLines } from './log-ingest.ts';

const MIB = 1024 * 1024;
const history = (world: ReturnType<typeof observedWorld>, serviceId = world.tree.serviceId) => {
  world.t.hub.observe.logs.flush();
  return pageBackward(world.t.db, { serviceIds: [serviceId] }, 5000).lines;
};
const retained = (world: ReturnType<typeof observedWorld>, organizationId = world.owner.organizationId) =>
  world.t.db.select({ bytes: sql<number>`coalesce(sum(${logChunk.bytes}), 0)` }).from(logChunk).where(eq(logChunk.organizationId, organizationId)).get()!.bytes;

describe('log lines from a daemon', () => {
  test('become the service history in order, tagged with the container they came from; live subscribers get them at once', () => {
    const world = observedWorld();
    const { tree, send, t, row } = world;
    const live: LiveLines[] = [];
    t.hub.observe.logs.live.add(liveKey.service(tree.serviceId), (event) => void live.push(event));
    const start = t.clock.now().getTime();
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), lines: lines(start, 3) }]));
    expect(live.flatMap((event) => event.lines.map((line) => line.text))).toEqual(['line 0', 'line 1', 'line 2']);
    expect(live[0]).toMatchObject({ serviceId: tree.serviceId, containerId: row.id, ordinal: 1, containerName: 'web-1' });
    expect(history(world).map((line) => [line.text, line.stream, line.containerId])).toEqual([
      ['line 0', 'stdout', row.id],
      ['line 1', 'stdout', row.id],
      ['line 2', 'stdout', row.id],
    ]);
  });

  test("a daemon cannot write into another organization's service, nor name a service under the wrong environment", () => {
    const world = observedWorld();
    const strangerTree = seedTree(world.t, createOwner(world.t).organizationId);
    const otherEnvironment = seedTree(world.t, world.owner.organizationId).environmentId;
    world.send(logsFrame([{ ...slot(strangerTree.environmentId, strangerTree.serviceId), lines: lines(0, 2) }]));
    world.send(logsFrame([{ ...slot(otherEnvironment, world.tree.serviceId), lines: lines(0, 2) }]));
    world.t.hub.observe.logs.flush();
    expect(world.t.db.select().from(logChunk).all()).toEqual([]);
    expect(world.t.hub.observe.logs.stats.refused).toBe(4);
    expect(world.socket.closedWith).toBeNull();
  });

  test('history survives a redeploy: a recreated container (new runtime id, same slot) continues the same history', () => {
    const world = observedWorld();
    const { tree, send } = world;
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId, { containerId: 'a'.repeat(64) }), lines: lines(1_000, 2, (i) => `before ${i}`) }]));
    world.t.hub.observe.logs.flush();
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId, { containerId: 'b'.repeat(64) }), lines: lines(60_000, 2, (i) => `after ${i}`) }]));
    expect(history(world).map((line) => line.text)).toEqual(['before 0', 'before 1', 'after 0', 'after 1']);
  });

  test('lines the daemon dropped leave a marker where they were', () => {
    const world = observedWorld();
    const { tree, send } = world;
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), lines: lines(1_000, 1, () => 'kept') }]));
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), dropped: 5000, lines: lines(9_000, 1, () => 'kept after') }]));
    const got = history(world).map((line) => [line.stream, line.text]);
    expect(got[0]).toEqual(['stdout', 'kept']);
    expect(got[1]![0]).toBe('panel');
    expect(got[1]![1]).toContain('5000 lines dropped');
    expect(got[2]).toEqual(['stdout', 'kept after']);
  });

  test('buffered lines are written once their chunk is old enough (or on demand), not one row per line', () => {
    const world = observedWorld();
    const { tree, send, t } = world;
    const start = t.clock.now().getTime();
    for (let i = 0; i < 5; i++) send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId, { containerId: 'c'.repeat(64) }), lines: lines(start + i * 1000, 1) }]));
    t.hub.observe.logs.flush(false);
    expect(t.db.select().from(logChunk).all()).toHaveLength(0);
    t.clock.advance(CHUNK_AGE_MS);
    t.hub.observe.logs.flush(false);
    expect(t.db.select({ lineCount: logChunk.lineCount }).from(logChunk).all()).toEqual([{ lineCount: 5 }]);
  });
});

describe('retention', () => {
  test('an organization never keeps more than its size bound: the oldest lines go first, the newest stay, other organizations are untouched', () => {
    const t = createTestApp({ logRetentionBytes: 64 * MIB });
    const world = observedWorld(t);
    const neighbour = observedWorld(t);
    t.db.update(organization).set({ logRetentionBytes: MIB }).where(eq(organization.id, world.owner.organizationId)).run();
    neighbour.send(logsFrame([{ ...slot(neighbour.tree.environmentId, neighbour.tree.serviceId), lines: lines(0, 10, (i) => `neighbour ${i}`) }]));
    const wide = (i: number) => `${String(i).padStart(6, '0')} ${'x'.repeat(1000)}`;
    const start = t.clock.now().getTime();
    // 3 MiB in 200-line frames; the bound is checked after every written chunk.
    for (let frame = 0; frame < 16; frame++) {
      world.send(logsFrame([{ ...slot(world.tree.environmentId, world.tree.serviceId), lines: lines(start + frame * 200_000, 200, (i) => wide(frame * 200 + i)) }]));
      expect(retained(world)).toBeLessThanOrEqual(MIB + 64 * 1024);
    }
    t.hub.observe.logs.flush();
    expect(retained(world)).toBeLessThanOrEqual(MIB);
    expect(retained(world)).toBeGreaterThan(MIB / 2);
    const kept = history(world).map((line) => Number(line.text.slice(0, 6)));
    expect(kept.at(-1)).toBe(16 * 200 - 1);
    expect(kept[0]).toBeGreaterThan(0);
    // What remains is one contiguous run ending with the newest line: the oldest went first.
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => kept[0]! + i));
    expect(history(neighbour).map((line) => line.text)).toHaveLength(10);
  });

  test("an organization's own bound never exceeds the operator's", () => {
    const t = createTestApp({ logRetentionBytes: 2 * MIB });
    const world = observedWorld(t);
    t.db.update(organization).set({ logRetentionBytes: 1024 * MIB }).where(eq(organization.id, world.owner.organizationId)).run();
    const start = t.clock.now().getTime();
    for (let frame = 0; frame < 24; frame++) {
      world.send(logsFrame([{ ...slot(world.tree.environmentId, world.tree.serviceId), lines: lines(start + frame * 200_000, 200, () => 'y'.repeat(1000)) }]));
    }
    t.hub.observe.logs.flush();
    expect(retained(world)).toBeLessThanOrEqual(2 * MIB);
  });

  test('lines older than the age bound go at the sweep; younger ones stay', () => {
    const t = createTestApp({ logRetentionDays: 14 });
    const world = observedWorld(t);
    t.db.update(organization).set({ logRetentionDays: 2 }).where(eq(organization.id, world.owner.organizationId)).run();
    const day = 86_400_000;
    const now = t.clock.now().getTime();
    world.send(logsFrame([{ ...slot(world.tree.environmentId, world.tree.serviceId), lines: lines(now - 3 * day, 1, () => 'three days old') }]));
    t.hub.observe.logs.flush();
    world.send(logsFrame([{ ...slot(world.tree.environmentId, world.tree.serviceId), lines: lines(now - day, 1, () => 'one day old') }]));
    t.hub.observe.logs.sweep();
    expect(history(world).map((line) => line.text)).toEqual(['one day old']);
  });

  test('over the size bound, the oldest lines by time go first, even when they arrived last (a daemon catching up after a disconnect)', () => {
    const t = createTestApp({ logRetentionBytes: 64 * MIB });
    const world = observedWorld(t);
    t.db.update(organization).set({ logRetentionBytes: MIB }).where(eq(organization.id, world.owner.organizationId)).run();
    const now = t.clock.now().getTime();
    const wide = (label: string) => (i: number) => `${label} ${String(i).padStart(4, '0')} ${'x'.repeat(1000)}`;
    const send = (ordinal: number, start: number, label: string) => {
      for (let frame = 0; frame < 3; frame++) {
        world.send(logsFrame([{ ...slot(world.tree.environmentId, world.tree.serviceId, { containerId: `replica${ordinal}`.padEnd(64, '0'), ordinal }), lines: lines(start + frame * 200_000, 200, (i) => wide(label)(frame * 200 + i)) }]));
      }
      t.hub.observe.logs.flush();
    };
    send(1, now - 600_000, 'recent');
    // Replica 2's backlog from an hour earlier arrives after replica 1's recent lines.
    send(2, now - 3_600_000 - 600_000, 'backlog');
    expect(retained(world)).toBeLessThanOrEqual(MIB);
    const kept = history(world).map((line) => line.text.slice(0, line.text.indexOf(' x')));
    expect(kept.filter((text) => text.startsWith('recent'))).toEqual(Array.from({ length: 600 }, (_, i) => wide('recent')(i).slice(0, 11)));
    // Of the backlog, what remains is its newest part.
    const backlog = kept.filter((text) => text.startsWith('backlog')).map((text) => Number(text.split(' ')[1]));
    expect(backlog.length).toBeLessThan(600);
    expect(backlog.at(-1)).toBe(599);
    expect(backlog).toEqual(Array.from({ length: backlog.length }, (_, i) => 600 - backlog.length + i));
  });

  test('lines older than the age bound go at the sweep even when they arrived after younger ones', () => {
    const t = createTestApp({ logRetentionDays: 14 });
    const world = observedWorld(t);
    t.db.update(organization).set({ logRetentionDays: 2 }).where(eq(organization.id, world.owner.organizationId)).run();
    const day = 86_400_000;
    const now = t.clock.now().getTime();
    world.send(logsFrame([{ ...slot(world.tree.environmentId, world.tree.serviceId), lines: lines(now - day, 1, () => 'one day old') }]));
    t.hub.observe.logs.flush();
    world.send(logsFrame([{ ...slot(world.tree.environmentId, world.tree.serviceId, { ordinal: 2 }), lines: lines(now - 3 * day, 1, () => 'three days old, sent late') }]));
    t.hub.observe.logs.flush();
    t.hub.observe.logs.sweep();
    expect(history(world).map((line) => line.text)).toEqual(['one day old']);
  });
});
