/**
 * The WebSocket namespaces over real sockets (Bun.serve on 127.0.0.1:0 and on a unix socket):
 * the daemon credential checked before the upgrade, the local slot on the unix listener, the
 * real agent connection (src/daemon/agent/connection.ts) talking to the hub, and client
 * subscriptions authenticated like the API and isolated by organization.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { CommandJournal } from '../../daemon/agent/command-journal.ts';
import { HubConnection as AgentConnection, localHubTarget } from '../../daemon/agent/connection.ts';
import { HUB_FEATURES } from '../../daemon/hub.ts';
import { CLOSE_CODES, type CommandFrame } from '../../contract/daemon-protocol.ts';
import { daemonCommand, server } from '../../db/schema/index.ts';
import { insertCommand } from '../../domain/commands/service.ts';
import { insertDeployment } from '../../domain/deployments/queries.ts';
import { silentLogger } from '../../lib/logger.ts';
import { enrolledServer, helloFrame, listenOnLoopback, listenOnUnixSocket, nextTurn, SocketProbe, upgradeStatus } from '../../../test/daemon.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { createOwner, tokenFor } from '../../../test/identity.ts';
import { seedTree } from '../../../test/seed.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const listen = (t: TestApp) => listenOnLoopback(t, cleanups);

const listenLocal = (t: TestApp) => listenOnUnixSocket(t, cleanups);

const LOCAL_KEY = { keyId: 'dk_local', publicKey: 'A'.repeat(43) };
const localAuthorization = (t: TestApp) => ({ authorization: `Bearer ${t.localCredential}` });

/** Resolves when the hub is told a socket closed. */
function hubHearsClose(t: TestApp): Promise<void> {
  const closed = t.hub.closed.bind(t.hub);
  return new Promise((resolve) => {
    t.hub.closed = (...args) => {
      closed(...args);
      resolve();
    };
  });
}

describe('/ws/daemon/v1', () => {
  test('without a valid credential the upgrade is refused with 401; with one, hello gets welcome', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const node = enrolledServer(t, owner.organizationId);
    const base = listen(t);
    expect(await upgradeStatus(`${base}/ws/daemon/v1`)).toBe(401);
    expect(await upgradeStatus(`${base}/ws/daemon/v1`, { authorization: 'Bearer pnd_wrong' })).toBe(401);
    expect(t.hub.connectionCount).toBe(0);

    const probe = await SocketProbe.open(`${base}/ws/daemon/v1`, { authorization: `Bearer ${node.credential}` });
    probe.send(helloFrame({ serverId: node.id, machineId: node.machineId }));
    expect(await probe.next((frame) => frame.type === 'welcome')).toEqual({ type: 'welcome', serverId: node.id, features: HUB_FEATURES });
    expect(t.db.select().from(server).where(eq(server.id, node.id)).get()!.status).toBe('connected');
    // The hub hears the close through the socket's raw callback.
    const heard = hubHearsClose(t);
    probe.socket.close(1000);
    await heard;
    expect(t.hub.isConnected(node.id)).toBe(false);
    await nextTurn();
    expect(t.db.select().from(server).where(eq(server.id, node.id)).get()!.status).toBe('disconnected');
  });

  test('a malformed frame closes the socket with 4000 and its reason', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const node = enrolledServer(t, owner.organizationId);
    const probe = await SocketProbe.open(`${listen(t)}/ws/daemon/v1`, { authorization: `Bearer ${node.credential}` });
    probe.socket.send('not json');
    expect(await probe.closedWith()).toEqual({ code: CLOSE_CODES.malformedFrame, reason: 'frame is not valid JSON' });
  });

  test('the unix listener is the local slot: the local credential, one record however often it connects', async () => {
    const t = createTestApp();
    createOwner(t);
    const socketPath = listenLocal(t);
    // The TCP listener of the same hub wants an enrolled credential, not the local one.
    expect(await upgradeStatus(`${listen(t)}/ws/daemon/v1`, localAuthorization(t))).toBe(401);
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const probe = await SocketProbe.open(`ws+unix://${socketPath}:/ws/daemon/v1`, localAuthorization(t));
      probe.send(helloFrame({ machineId: 'panel-host', hostname: 'panel-host', daemonKey: LOCAL_KEY }));
      ids.push((await probe.next((frame) => frame.type === 'welcome')).serverId);
      probe.socket.close(1000);
      await probe.closedWith();
    }
    expect(ids[0]).toBe(ids[1]);
    expect(t.db.select().from(server).all().map((row) => [row.id, row.isLocal])).toEqual([[ids[0], true]]);
  });

  test("the agent's own connection runs a queued command once and the hub records the outcome", async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const tree = seedTree(t, owner.organizationId);
    const socketPath = listenLocal(t);
    // The local record exists before the deploy: connect once to create it.
    const first = await SocketProbe.open(`ws+unix://${socketPath}:/ws/daemon/v1`, localAuthorization(t));
    first.send(helloFrame({ machineId: 'panel-host', daemonKey: LOCAL_KEY }));
    const localId = (await first.next((frame) => frame.type === 'welcome')).serverId as string;
    first.socket.close(1000);
    await first.closedWith();
    const row = insertDeployment(t.db, { environmentId: tree.environmentId, serverId: localId, kind: 'stop', desiredGeneration: 0 });
    const command = insertCommand(t.db, {
      serverId: localId,
      deploymentId: row.id,
      kind: 'stop',
      payload: { deploymentId: row.id, project: `pn-${tree.environmentId}` },
      expiresAt: new Date(t.clock.now().getTime() + 3_600_000),
    });

    const executed: string[] = [];
    const stop = new AbortController();
    const done = new Promise<void>((resolve) =>
      t.hub.feed.subscribe(tree.environmentId, (event) => event.type === 'deployment' && event.deployment.status === 'succeeded' && resolve()),
    );
    const agent = new AgentConnection({
      target: localHubTarget(socketPath, async () => t.localCredential),
      journal: CommandJournal.inMemory(),
      logger: silentLogger,
      signal: stop.signal,
      session: {
        hello: async () => helloFrame({ machineId: 'panel-host', daemonKey: LOCAL_KEY }),
        onWelcome: async () => {},
        execute: async (frame: CommandFrame) => {
          executed.push(frame.id);
          return { report: { project: 'project' in frame.payload ? frame.payload.project : 'none', containers: [] }, result: { ok: true, data: {} } };
        },
      },
    });
    const running = agent.run();
    await done;
    stop.abort();
    expect((await running).reason).toBe('stopped');
    expect(executed).toEqual([command.id]);
    expect(t.db.select().from(daemonCommand).where(eq(daemonCommand.id, command.id)).get()).toMatchObject({ status: 'succeeded', payload: null });
  });
});

describe('/ws/client/v1', () => {
  test('cookie upgrades need the public origin; bearer tokens need none; anonymous is 401', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const url = `${listen(t)}/ws/client/v1`;
    expect(await upgradeStatus(url)).toBe(401);
    expect(await upgradeStatus(url, { cookie: owner.headers.cookie! })).toBe(403);
    expect(await upgradeStatus(url, { cookie: owner.headers.cookie!, origin: 'https://evil.example' })).toBe(403);
    expect(await upgradeStatus(url, owner.headers)).toBe(101);
    expect(await upgradeStatus(url, tokenFor(t, owner, 'member'))).toBe(101);
  });

  test('subscribers get a snapshot and every change of their environment; another organization gets an error, never data', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const stranger = createOwner(t);
    const tree = seedTree(t, owner.organizationId);
    const url = `${listen(t)}/ws/client/v1`;
    const mine = await SocketProbe.open(url, owner.headers);
    const theirs = await SocketProbe.open(url, stranger.headers);
    mine.send({ type: 'subscribe', environmentId: tree.environmentId });
    theirs.send({ type: 'subscribe', environmentId: tree.environmentId });
    expect(await mine.next((frame) => frame.type === 'subscribed')).toMatchObject({ environmentId: tree.environmentId, deployments: [], containers: [] });
    expect(await theirs.next((frame) => frame.type === 'error')).toMatchObject({ code: 'not_found', environmentId: tree.environmentId });
    theirs.send({ type: 'bogus' });
    expect(await theirs.next((frame) => frame.code === 'invalid_message')).toMatchObject({ type: 'error' });

    const row = insertDeployment(t.db, { environmentId: tree.environmentId, serverId: tree.serverId, kind: 'deploy', desiredGeneration: 1 });
    t.hub.feed.deployment(row);
    expect(await mine.next((frame) => frame.type === 'deployment')).toMatchObject({
      environmentId: tree.environmentId,
      deployment: { id: row.id, status: 'queued', kind: 'deploy' },
    });
    // A marker frame after the change: the stranger's socket saw nothing in between.
    theirs.send({ type: 'unsubscribe', environmentId: tree.environmentId });
    await theirs.next((frame) => frame.type === 'unsubscribed');
    expect(theirs.frames.some((frame: any) => frame.type === 'deployment' || frame.type === 'container')).toBe(false);

    mine.send({ type: 'unsubscribe', environmentId: tree.environmentId });
    await mine.next((frame) => frame.type === 'unsubscribed');
    expect(t.hub.feed.size).toBe(0);
    mine.socket.close();
    theirs.socket.close();
  });
});
