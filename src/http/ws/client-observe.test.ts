/**
 * The observability topics of /ws/client/v1 over real sockets: a member gets the last lines and
 * then each new one, a deploy log as it is written, live metric points (and its subscription makes
 * the daemon sample every 10 s), events; another organization's ids are refused with no data; a
 * removed member hears nothing more.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { container, membership } from '../../db/schema/index.ts';
import { insertCommand } from '../../domain/commands/service.ts';
import { insertDeployment } from '../../domain/deployments/queries.ts';
import { listenOnLoopback, SocketProbe } from '../../../test/daemon.ts';
import { addMember, createOwner } from '../../../test/identity.ts';
import { lines, logsFrame, observedWorld, slot } from '../../../test/observe.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const world = observedWorld();
  const member = addMember(world.t, world.owner.organizationId, 'member');
  const base = listenOnLoopback(world.t, cleanups);
  const open = async (headers = member.headers) => {
    const probe = await SocketProbe.open(`${base}/ws/client/v1`, headers);
    cleanups.push(() => probe.socket.close());
    return probe;
  };
  return { ...world, member, open };
}

/** Everything published before this call has arrived once the answer to one more message has. */
async function settle(probe: SocketProbe): Promise<void> {
  const marker = crypto.randomUUID();
  probe.send({ type: 'unsubscribe', environmentId: marker });
  await probe.next((frame) => frame.type === 'unsubscribed' && frame.environmentId === marker);
}

describe('/ws/client/v1 logs', () => {
  test('the last lines first, then each new line; the environment topic interleaves its services', async () => {
    const { tree, send, open } = await setup();
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), lines: lines(1_000, 5) }]));
    const watcher = await open();
    watcher.send({ type: 'subscribe', topic: 'logs', serviceId: tree.serviceId, tail: 2 });
    const snapshot = await watcher.next((frame) => frame.type === 'subscribed' && frame.topic === 'logs');
    expect(snapshot).toMatchObject({ topic: 'logs', serviceId: tree.serviceId, lines: [{ text: 'line 3' }, { text: 'line 4' }] });
    watcher.send({ type: 'subscribe', topic: 'logs', environmentId: tree.environmentId, tail: 0 });
    await watcher.next((frame) => frame.type === 'subscribed' && frame.environmentId === tree.environmentId);
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), lines: lines(9_000, 1, () => 'fresh') }]));
    const live = await watcher.until((frames) => (frames.filter((frame) => frame.type === 'logs').length === 2 ? frames.filter((frame) => frame.type === 'logs') : undefined));
    expect(live.map((frame) => [frame.serviceId ?? null, frame.environmentId ?? null, frame.lines.map((line: { text: string }) => line.text)])).toEqual(
      expect.arrayContaining([
        [tree.serviceId, null, ['fresh']],
        [null, tree.environmentId, ['fresh']],
      ]),
    );
    expect(live[0].lines[0]).toMatchObject({ stream: 'stdout', ordinal: 1, containerName: 'web-1', at: new Date(9_000).toISOString() });
  });

  test('one replica: a container row gets its own last lines and live lines, none of the other replica', async () => {
    const { t, tree, node, send, open } = await setup();
    const second = t.db
      .insert(container)
      .values({ serviceId: tree.serviceId, serverId: node.id, containerName: 'web-2', composeServiceName: 'web', role: 'service', ordinal: 2 })
      .returning()
      .get();
    const replica = (ordinal: number) => slot(tree.environmentId, tree.serviceId, { containerId: `replica${ordinal}`.padEnd(64, '0'), name: `web-${ordinal}`, ordinal });
    send(logsFrame([{ ...replica(1), lines: lines(1_000, 3, (i) => `first ${i}`) }, { ...replica(2), lines: lines(1_500, 3, (i) => `second ${i}`) }]));
    const watcher = await open();
    watcher.send({ type: 'subscribe', topic: 'logs', containerId: second.id, tail: 10 });
    const snapshot = await watcher.next((frame) => frame.type === 'subscribed');
    expect(snapshot).toMatchObject({ topic: 'logs', containerId: second.id });
    expect(snapshot.lines.map((line: { text: string; containerId: string }) => [line.text, line.containerId])).toEqual([
      ['second 0', second.id],
      ['second 1', second.id],
      ['second 2', second.id],
    ]);
    send(logsFrame([{ ...replica(1), lines: lines(9_000, 1, () => 'first live') }, { ...replica(2), lines: lines(9_000, 1, () => 'second live') }]));
    await settle(watcher);
    const live = watcher.frames.filter((frame: any) => frame.type === 'logs') as { containerId?: string; lines: { text: string }[] }[];
    expect(live.flatMap((frame) => frame.lines.map((line) => line.text))).toEqual(['second live']);
    expect(live.every((frame) => frame.containerId === second.id)).toBe(true);
  });

  test("another organization's service is refused with no data; a removed member hears nothing more", async () => {
    const { t, tree, send, open, member } = await setup();
    const stranger = await open(createOwner(t).headers);
    stranger.send({ type: 'subscribe', topic: 'logs', serviceId: tree.serviceId });
    expect(await stranger.next((frame) => frame.type === 'error')).toMatchObject({ code: 'not_found', topic: 'logs', serviceId: tree.serviceId });
    const watcher = await open();
    watcher.send({ type: 'subscribe', topic: 'logs', serviceId: tree.serviceId, tail: 0 });
    await watcher.next((frame) => frame.type === 'subscribed');
    t.db.delete(membership).where(eq(membership.userId, member.userId)).run();
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), lines: lines(5_000, 1, () => 'secret line') }]));
    expect(await watcher.next((frame) => frame.type === 'error')).toMatchObject({ code: 'not_found', topic: 'logs', serviceId: tree.serviceId });
    await settle(watcher);
    expect(JSON.stringify(watcher.frames)).not.toContain('secret line');
    expect(JSON.stringify(stranger.frames)).not.toContain('line');
  });

  test('a message whose ids do not fit its topic is refused', async () => {
    const { tree, open } = await setup();
    const watcher = await open();
    watcher.send({ type: 'subscribe', topic: 'logs', serverId: tree.serverId });
    expect(await watcher.next((frame) => frame.type === 'error')).toMatchObject({ code: 'invalid_message' });
  });
});

describe('/ws/client/v1 deploy logs, metrics and events', () => {
  test('a deploy log: what is written so far, then each line and the status change', async () => {
    const { t, tree, node, send, open } = await setup();
    const deployment = insertDeployment(t.db, { environmentId: tree.environmentId, serverId: node.id, kind: 'deploy', desiredGeneration: 1 });
    const command = insertCommand(t.db, { serverId: node.id, deploymentId: deployment.id, kind: 'deploy', payload: {}, expiresAt: new Date(t.clock.now().getTime() + 60_000) });
    send({ type: 'output', commandId: command.id, lines: [[1, 'stdout', 'first']] });
    const watcher = await open();
    watcher.send({ type: 'subscribe', topic: 'deploymentLog', deploymentId: deployment.id });
    expect(await watcher.next((frame) => frame.type === 'subscribed')).toMatchObject({ deployment: { id: deployment.id, status: 'queued' }, lines: [{ seq: 1, text: 'first' }] });
    send({ type: 'ack', id: command.id });
    send({ type: 'output', commandId: command.id, lines: [[2, 'stderr', 'pull access denied']] });
    send({ type: 'result', id: command.id, ok: false, error: { code: 'compose_up_failed', message: 'pull access denied' } });
    const failed = await watcher.next((frame) => frame.type === 'deployment' && frame.deployment.status === 'failed');
    expect(failed.deployment.error).toContain('pull access denied');
    expect(watcher.frames.find((frame: any) => frame.type === 'deploymentLog')).toMatchObject({ deploymentId: deployment.id, lines: [{ seq: 2, stream: 'stderr', text: 'pull access denied' }] });
  });

  test('metrics: the daemon is told to sample every 10 s while someone watches, and the points arrive', async () => {
    const { t, node, send, socket, open } = await setup();
    const watcher = await open();
    watcher.send({ type: 'subscribe', topic: 'metrics', serverId: node.id });
    await watcher.next((frame) => frame.type === 'subscribed');
    expect(socket.framesOf('watch')).toEqual([{ type: 'watch', metricsIntervalMs: 10_000 }]);
    send({ type: 'metrics', at: t.clock.now().getTime(), host: { cpuCount: 1, cpu: 0.5, memoryUsed: 1, memoryTotal: 2, diskUsed: 1, diskTotal: 2, load1: 0, load5: 0, load15: 0 }, containers: [] });
    expect(await watcher.next((frame) => frame.type === 'metrics')).toMatchObject({ serverId: node.id, points: [{ serverId: node.id, cpu: 0.5 }] });
    watcher.send({ type: 'unsubscribe', topic: 'metrics', serverId: node.id });
    await watcher.next((frame) => frame.type === 'unsubscribed');
    expect(socket.framesOf('watch').at(-1)).toEqual({ type: 'watch', metricsIntervalMs: 60_000 });
  });

  test('events: the newest first in the snapshot, then each new one', async () => {
    const { t, owner, open } = await setup();
    const watcher = await open();
    watcher.send({ type: 'subscribe', topic: 'events', organizationId: owner.organizationId });
    expect((await watcher.next((frame) => frame.type === 'subscribed')).events.map((row: { kind: string }) => row.kind)).toEqual(['server.connected']);
    t.hub.observe.events.record({ organizationId: owner.organizationId, kind: 'deployment.failed', severity: 'error', message: 'broke' });
    expect(await watcher.next((frame) => frame.type === 'event')).toMatchObject({ organizationId: owner.organizationId, event: { kind: 'deployment.failed', message: 'broke' } });
  });
});
