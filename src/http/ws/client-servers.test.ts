/**
 * /ws/client/v1 subscriptions to an organization's servers, over real sockets (Bun.serve on
 * 127.0.0.1:0): a member sees the snapshot, a real daemon socket connecting and disconnecting,
 * a rename and a delete; a caller outside the organization is refused and hears nothing; an
 * unsubscribed socket hears nothing more.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { enrolledServer, helloFrame, listenOnLoopback, SocketProbe } from '../../../test/daemon.ts';
import { clientAs } from '../../../test/client.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { addMember, createOwner, tokenFor } from '../../../test/identity.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const listen = (t: TestApp) => listenOnLoopback(t, cleanups);

async function open(url: string, headers: Record<string, string>): Promise<SocketProbe> {
  const probe = await SocketProbe.open(url, headers);
  cleanups.push(() => probe.socket.close());
  return probe;
}

/** A daemon socket that said hello and got its welcome: the hub has published the connect. */
async function connectDaemon(base: string, node: { id: string; credential: string; machineId: string }): Promise<SocketProbe> {
  const daemon = await open(`${base}/ws/daemon/v1`, { authorization: `Bearer ${node.credential}` });
  daemon.send(helloFrame({ serverId: node.id, machineId: node.machineId, hostname: 'web-1' }));
  await daemon.next((frame) => frame.type === 'welcome');
  return daemon;
}

/**
 * Frames a socket got before its answer to one more message: the server answers in order, so
 * anything published before this call has arrived by then.
 */
async function framesSoFar(probe: SocketProbe): Promise<any[]> {
  const marker = { type: 'unsubscribe', environmentId: crypto.randomUUID() };
  probe.send(marker);
  await probe.next((frame) => frame.type === 'unsubscribed' && frame.environmentId === marker.environmentId);
  return probe.frames.filter((frame: any) => frame.environmentId !== marker.environmentId);
}

const serverFrames = (frames: any[]) => frames.filter((frame) => frame.type === 'server' || frame.type === 'serverDeleted');

describe('/ws/client/v1 organization servers', () => {
  test('a member gets the snapshot, then every connect, disconnect, rename and delete', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const member = addMember(t, owner.organizationId, 'member');
    const node = enrolledServer(t, owner.organizationId, { name: 'web' });
    const base = listen(t);
    const watcher = await open(`${base}/ws/client/v1`, member.headers);

    watcher.send({ type: 'subscribe', organizationId: owner.organizationId });
    const snapshot = await watcher.next((frame) => frame.type === 'subscribed');
    expect(snapshot).toMatchObject({ organizationId: owner.organizationId, servers: [{ id: node.id, name: 'web', status: 'pending', lastSeenAt: null }] });

    const daemon = await connectDaemon(base, node);
    const connected = await watcher.next((frame) => frame.type === 'server' && frame.server.status === 'connected');
    expect(connected).toMatchObject({ organizationId: owner.organizationId, server: { id: node.id, hostname: 'web-1', lastSeenAt: expect.any(String) } });
    // Shaped exactly as the list route answers it.
    const listed = await clientAs(t, owner)('GET', `/servers?organizationId=${owner.organizationId}`);
    expect(Object.keys(connected.server).sort()).toEqual(Object.keys((listed.json as any).data[0]).sort());

    daemon.socket.close(1000);
    const disconnected = await watcher.next((frame) => frame.type === 'server' && frame.server.status === 'disconnected');
    expect(disconnected.server).toMatchObject({ id: node.id, lastSeenAt: expect.any(String) });

    expect((await clientAs(t, owner)('PATCH', `/servers/${node.id}`, { name: 'web-renamed' })).status).toBe(200);
    expect(await watcher.next((frame) => frame.type === 'server' && frame.server.name === 'web-renamed')).toMatchObject({ server: { id: node.id } });

    expect((await clientAs(t, owner)('DELETE', `/servers/${node.id}`)).status).toBe(204);
    expect(await watcher.next((frame) => frame.type === 'serverDeleted')).toEqual({ type: 'serverDeleted', organizationId: owner.organizationId, serverId: node.id });
  });

  test("another organization's caller is refused and hears nothing of its servers", async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const stranger = createOwner(t);
    const node = enrolledServer(t, owner.organizationId);
    const base = listen(t);
    const url = `${base}/ws/client/v1`;
    const bySession = await open(url, stranger.headers);
    const byToken = await open(url, tokenFor(t, stranger, 'owner'));

    for (const probe of [bySession, byToken]) {
      probe.send({ type: 'subscribe', organizationId: owner.organizationId });
      expect(await probe.next((frame) => frame.type === 'error')).toMatchObject({ code: 'not_found', organizationId: owner.organizationId });
    }
    const daemon = await connectDaemon(base, node);
    daemon.socket.close(1000);
    await daemon.closedWith();
    expect((await clientAs(t, owner)('PATCH', `/servers/${node.id}`, { name: 'secret-name' })).status).toBe(200);

    for (const probe of [bySession, byToken]) {
      const frames = await framesSoFar(probe);
      expect(serverFrames(frames)).toEqual([]);
      expect(JSON.stringify(frames)).not.toContain(node.id);
    }
    expect(t.hub.feed.size).toBe(0);
  });

  test('after unsubscribe no server event arrives; a message names exactly one of environment and organization', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const node = enrolledServer(t, owner.organizationId);
    const base = listen(t);
    const watcher = await open(`${base}/ws/client/v1`, owner.headers);

    watcher.send({ type: 'subscribe', organizationId: owner.organizationId, environmentId: crypto.randomUUID() });
    expect(await watcher.next((frame) => frame.type === 'error')).toMatchObject({ code: 'invalid_message' });
    watcher.send({ type: 'subscribe', organizationId: owner.organizationId });
    await watcher.next((frame) => frame.type === 'subscribed');
    expect(t.hub.feed.size).toBe(1);
    watcher.send({ type: 'unsubscribe', organizationId: owner.organizationId });
    await watcher.next((frame) => frame.type === 'unsubscribed' && frame.organizationId === owner.organizationId);
    expect(t.hub.feed.size).toBe(0);

    const daemon = await connectDaemon(base, node);
    daemon.socket.close(1000);
    await daemon.closedWith();
    expect(serverFrames(await framesSoFar(watcher))).toEqual([]);
  });
});
