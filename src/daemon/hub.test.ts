/**
 * The hub's connection rules with fake sockets and a manual clock: hello resolution, reconnect
 * dedupe, impersonation, duplicate machine ids, the local slot, frame refusals, heartbeats and
 * the connected/disconnected status.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { enrolledServer, FakeSocket, helloFrame, nextTurn, sayHello } from '../../test/daemon.ts';
import { event, server } from '../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { createOwner } from '../../test/identity.ts';
import { HUB_FEATURES } from './hub.ts';
import type { HubClaim, HubConnection } from './hub/connection.ts';
import { CLOSE_CODES, MAX_FRAME_BYTES } from '../contract/daemon-protocol.ts';

/** A connection, and its hello written as after the turn (see 'hellos are written in batches' for the turn itself). */
function connect(t: TestApp, claim: HubClaim, hello?: object) {
  const socket = new FakeSocket();
  const connection = t.hub.open(socket, claim);
  if (hello) sayHello(t, connection, hello);
  return { socket, connection };
}

/** A connection whose hello is answered but, like every hello of this turn, not written yet. */
function connectInThisTurn(t: TestApp, claim: HubClaim, hello: object) {
  const socket = new FakeSocket();
  const connection = t.hub.open(socket, claim);
  t.hub.receive(connection, JSON.stringify(hello));
  return { socket, connection };
}

const serverRow = (t: TestApp, id: string) => t.db.select().from(server).where(eq(server.id, id)).get()!;
const send = (t: TestApp, connection: HubConnection, frame: object) => t.hub.receive(connection, JSON.stringify(frame));

function setup() {
  const t = createTestApp();
  const owner = createOwner(t);
  const node = enrolledServer(t, owner.organizationId);
  const tcp = (serverId = node.id): HubClaim => ({ listener: 'tcp', serverId });
  return { t, owner, node, tcp };
}

describe('hello', () => {
  test('resolves the credential\'s server, welcomes it and marks it connected', () => {
    const { t, node, tcp } = setup();
    const { socket } = connect(t, tcp(), helloFrame({ serverId: node.id, machineId: node.machineId, hostname: 'node-a' }));
    expect(socket.framesOf('welcome')).toEqual([{ type: 'welcome', serverId: node.id, features: HUB_FEATURES }]);
    expect(socket.closedWith).toBeNull();
    const row = serverRow(t, node.id);
    expect(row.status).toBe('connected');
    expect(row.hostname).toBe('node-a');
    expect(row.lastSeenAt?.getTime()).toBe(t.clock.now().getTime());
    expect(row.flag).toBeNull();
    expect(t.hub.isConnected(node.id)).toBe(true);
  });

  test('a reconnect replaces the older socket (4009) and keeps one record', () => {
    const { t, owner, node, tcp } = setup();
    const hello = helloFrame({ serverId: node.id, machineId: node.machineId });
    const first = connect(t, tcp(), hello);
    const second = connect(t, tcp(), hello);
    expect(first.socket.closedWith).toEqual({ code: CLOSE_CODES.replaced, reason: 'replaced by a newer connection of this server' });
    expect(second.socket.closedWith).toBeNull();
    expect(second.socket.framesOf('welcome')).toHaveLength(1);
    // The replaced socket's close callback must not mark the server disconnected.
    t.hub.closed(first.connection, CLOSE_CODES.replaced, '');
    expect(serverRow(t, node.id).status).toBe('connected');
    expect(t.db.select().from(server).where(eq(server.organizationId, owner.organizationId)).all()).toHaveLength(1);
    expect(serverRow(t, node.id).flag).toBeNull();
  });

  test('a hello claiming another server id is refused with 4003', () => {
    const { t, owner, node, tcp } = setup();
    const other = enrolledServer(t, owner.organizationId);
    const { socket } = connect(t, tcp(), helloFrame({ serverId: other.id, machineId: node.machineId }));
    expect(socket.closedWith?.code).toBe(CLOSE_CODES.unauthorized);
    expect(socket.framesOf('welcome')).toEqual([]);
    expect(t.hub.isConnected(node.id)).toBe(false);
    expect(t.hub.isConnected(other.id)).toBe(false);
    expect(serverRow(t, other.id).status).toBe('pending');
  });

  test('two machines presenting one identity are flagged, never merged', () => {
    const { t, node, tcp } = setup();
    connect(t, tcp(), helloFrame({ serverId: node.id, machineId: node.machineId, hostname: 'node-a' }));
    const clone = connect(t, tcp(), helloFrame({ serverId: node.id, machineId: node.machineId, hostname: 'node-b' }));
    expect(clone.socket.framesOf('welcome')).toHaveLength(1);
    const row = serverRow(t, node.id);
    expect(row.flag).toBe('duplicate_machine_id');
    expect(row.flaggedAt).not.toBeNull();
    expect(row.machineId).toBe(node.machineId);
  });

  test('a machine id another record already holds flags both records and changes neither', () => {
    const { t, owner, node, tcp } = setup();
    const twin = enrolledServer(t, owner.organizationId);
    connect(t, tcp(), helloFrame({ serverId: node.id, machineId: twin.machineId }));
    expect(serverRow(t, node.id).flag).toBe('duplicate_machine_id');
    expect(serverRow(t, twin.id).flag).toBe('duplicate_machine_id');
    expect(serverRow(t, node.id).machineId).toBe(node.machineId);
    expect(serverRow(t, twin.id).machineId).toBe(twin.machineId);
  });

  test('anything before hello is refused with 4002; a second hello too', async () => {
    const { t, node, tcp } = setup();
    const early = connect(t, tcp());
    send(t, early.connection, { type: 'pong', ts: 1 });
    expect(early.socket.closedWith?.code).toBe(CLOSE_CODES.unexpectedFrame);
    const hello = helloFrame({ serverId: node.id, machineId: node.machineId });
    const twice = connect(t, tcp(), hello);
    send(t, twice.connection, hello);
    expect(twice.socket.closedWith?.code).toBe(CLOSE_CODES.unexpectedFrame);
    await nextTurn();
    expect(serverRow(t, node.id).status).toBe('disconnected');
  });

  test('malformed, binary and oversized frames close with the protocol codes', () => {
    const { t, tcp } = setup();
    const notJson = connect(t, tcp());
    t.hub.receive(notJson.connection, '{nope');
    expect(notJson.socket.closedWith).toEqual({ code: CLOSE_CODES.malformedFrame, reason: 'frame is not valid JSON' });
    const invalid = connect(t, tcp());
    send(t, invalid.connection, { type: 'hello', hostname: 'x' });
    expect(invalid.socket.closedWith?.code).toBe(CLOSE_CODES.malformedFrame);
    expect(invalid.socket.closedWith?.reason).toStartWith('invalid hello frame');
    const binary = connect(t, tcp());
    t.hub.receive(binary.connection, Buffer.from('{}'));
    expect(binary.socket.closedWith?.code).toBe(CLOSE_CODES.malformedFrame);
    const huge = connect(t, tcp());
    t.hub.receive(huge.connection, JSON.stringify({ ...helloFrame(), hostname: 'x'.repeat(MAX_FRAME_BYTES) }));
    expect(huge.socket.closedWith?.code).toBe(CLOSE_CODES.frameTooLarge);
  });
});

describe('heartbeats', () => {
  test('no hello within the deadline closes with 4008', () => {
    const { t, tcp } = setup();
    const { socket } = connect(t, tcp());
    t.clock.advance(9_999);
    t.hub.tick();
    expect(socket.closedWith).toBeNull();
    t.clock.advance(1);
    t.hub.tick();
    expect(socket.closedWith?.code).toBe(CLOSE_CODES.helloTimeout);
    expect(t.hub.connectionCount).toBe(0);
  });

  test('pings every 30 s, keeps last_seen_at, and drops a daemon silent for 90 s', async () => {
    const { t, node, tcp } = setup();
    const { socket, connection } = connect(t, tcp(), helloFrame({ serverId: node.id, machineId: node.machineId }));
    t.clock.advance(30_000);
    t.hub.tick();
    const [ping] = socket.framesOf('ping');
    expect(ping).toEqual({ type: 'ping', ts: t.clock.now().getTime() });
    send(t, connection, { type: 'pong', ts: ping!.ts });
    t.clock.advance(5_000);
    t.hub.tick();
    await nextTurn(); // last_seen_at is written after the tick's turn
    expect(serverRow(t, node.id).lastSeenAt?.getTime()).toBe(t.clock.now().getTime());
    // A daemon's own ping is answered.
    send(t, connection, { type: 'ping', ts: 42 });
    expect(socket.framesOf('pong')).toEqual([{ type: 'pong', ts: 42 }]);

    t.clock.advance(89_999);
    t.hub.tick();
    expect(socket.closedWith).toBeNull();
    t.clock.advance(1);
    t.hub.tick();
    expect(socket.closedWith?.code).toBe(CLOSE_CODES.goingAway);
    await nextTurn(); // written like every disconnect, after the turn
    const row = serverRow(t, node.id);
    expect(row.status).toBe('disconnected');
    expect(row.lastSeenAt?.getTime()).toBe(t.clock.now().getTime());
  });

  test('a closed socket marks its server disconnected; stop() closes every connection with 1001', async () => {
    const { t, owner, node, tcp } = setup();
    const { connection } = connect(t, tcp(), helloFrame({ serverId: node.id, machineId: node.machineId }));
    t.hub.closed(connection, 1006, '');
    expect(t.hub.isConnected(node.id)).toBe(false);
    await nextTurn();
    expect(serverRow(t, node.id).status).toBe('disconnected');
    const other = enrolledServer(t, owner.organizationId);
    const live = connect(t, tcp(other.id), helloFrame({ machineId: other.machineId }));
    t.hub.stop();
    expect(live.socket.closedWith?.code).toBe(CLOSE_CODES.goingAway);
    expect(serverRow(t, other.id).status).toBe('disconnected');
  });

  test('many closes at once are written in batches after the turn; a server back meanwhile stays connected', async () => {
    const { t, owner, node, tcp } = setup();
    const others = Array.from({ length: 3 }, () => enrolledServer(t, owner.organizationId));
    const hello = (server: { id: string; machineId: string }) => helloFrame({ serverId: server.id, machineId: server.machineId });
    const first = connect(t, tcp(), hello(node));
    const dropped = others.map((other) => connect(t, tcp(other.id), hello(other)));
    t.hub.closed(first.connection, 1006, '');
    for (const { connection } of dropped) t.hub.closed(connection, 1006, '');
    // The daemon of `node` is back before the write: its record must stay connected.
    connect(t, tcp(), hello(node));
    expect(serverRow(t, others[0]!.id).status).toBe('connected'); // not written during the closing turn
    t.hub.flushDisconnects(2); // a batch of two; the rest follows on the next turn
    expect(others.map((other) => serverRow(t, other.id).status)).toEqual(['disconnected', 'connected', 'connected']);
    await nextTurn();
    expect(others.map((other) => serverRow(t, other.id).status)).toEqual(['disconnected', 'disconnected', 'disconnected']);
    expect(serverRow(t, node.id).status).toBe('connected');
    expect(t.hub.isConnected(node.id)).toBe(true);
  });
});

describe('hellos are written in batches after the turn', () => {
  const serverEvents = (t: TestApp, id: string) =>
    t.db.select({ kind: event.kind }).from(event).where(eq(event.serverId, id)).orderBy(event.id).all().map((row) => row.kind);

  test('a hello is answered at once and written after the turn: connected, with one event', async () => {
    const { t, node, tcp } = setup();
    const { socket } = connectInThisTurn(t, tcp(), helloFrame({ serverId: node.id, machineId: node.machineId, hostname: 'node-a' }));
    expect(socket.framesOf('welcome')).toHaveLength(1);
    expect(t.hub.isConnected(node.id)).toBe(true);
    expect(serverRow(t, node.id).status).toBe('pending');
    expect(serverEvents(t, node.id)).toEqual([]);
    await nextTurn();
    expect(serverRow(t, node.id)).toMatchObject({ status: 'connected', hostname: 'node-a' });
    expect(serverEvents(t, node.id)).toEqual(['server.connected']);
  });

  test('many hellos in one turn: a batch of the size given, the rest on the next turn', async () => {
    const { t, owner, tcp } = setup();
    const nodes = Array.from({ length: 3 }, () => enrolledServer(t, owner.organizationId));
    for (const node of nodes) connectInThisTurn(t, tcp(node.id), helloFrame({ serverId: node.id, machineId: node.machineId }));
    t.hub.flushHellos(2);
    expect(nodes.map((node) => serverRow(t, node.id).status)).toEqual(['connected', 'connected', 'pending']);
    await nextTurn();
    expect(nodes.map((node) => serverRow(t, node.id).status)).toEqual(['connected', 'connected', 'connected']);
    expect(nodes.map((node) => serverEvents(t, node.id))).toEqual(nodes.map(() => ['server.connected']));
  });

  test('a daemon gone before its hello is written: nothing is written for it, and a record it had connected becomes disconnected', async () => {
    const { t, owner, node, tcp } = setup();
    // Closed in the turn of its hello: never written, no event either way.
    const brief = connectInThisTurn(t, tcp(), helloFrame({ serverId: node.id, machineId: node.machineId }));
    t.hub.closed(brief.connection, 1006, '');
    await nextTurn();
    expect(serverRow(t, node.id).status).toBe('pending');
    expect(serverEvents(t, node.id)).toEqual([]);

    // Connected and written; a newer connection replaces it and drops in the same turn.
    const other = enrolledServer(t, owner.organizationId);
    const hello = helloFrame({ serverId: other.id, machineId: other.machineId });
    connect(t, tcp(other.id), hello);
    const newer = connectInThisTurn(t, tcp(other.id), hello);
    t.hub.closed(newer.connection, 1006, '');
    await nextTurn();
    expect(serverRow(t, other.id).status).toBe('disconnected');
    expect(serverEvents(t, other.id)).toEqual(['server.connected', 'server.disconnected']);
    expect(t.hub.isConnected(other.id)).toBe(false);
  });

  test('a hello the batch cannot write is written alone; one that still fails is closed (1011) and its next hello is flagged', async () => {
    const { t, owner, tcp } = setup();
    // Two records without a machine id, claiming one machine in the same turn: the second claim breaks the unique index.
    const [a, b] = [enrolledServer(t, owner.organizationId), enrolledServer(t, owner.organizationId)];
    t.db.update(server).set({ machineId: null }).where(eq(server.organizationId, owner.organizationId)).run();
    const hello = (id: string) => helloFrame({ serverId: id, machineId: 'one-machine' });
    const first = connectInThisTurn(t, tcp(a.id), hello(a.id));
    const second = connectInThisTurn(t, tcp(b.id), hello(b.id));
    await nextTurn();
    expect(serverRow(t, a.id)).toMatchObject({ status: 'connected', machineId: 'one-machine', flag: null });
    expect(first.socket.closedWith).toBeNull();
    expect(second.socket.closedWith).toEqual({ code: 1011, reason: 'internal error' });
    expect(serverRow(t, b.id)).toMatchObject({ status: 'pending', machineId: null });
    connect(t, tcp(b.id), hello(b.id));
    expect(serverRow(t, b.id)).toMatchObject({ status: 'connected', machineId: null, flag: 'duplicate_machine_id' });
    expect(serverRow(t, a.id).flag).toBe('duplicate_machine_id');
  });
});

describe('the local slot', () => {
  test('the first local hello creates the local record for the installing organization, with its daemon key', () => {
    const t = createTestApp();
    const first = createOwner(t);
    createOwner(t);
    const { socket } = connect(t, { listener: 'unix' }, helloFrame({ hostname: 'panel-host', daemonKey: { keyId: 'dk_local', publicKey: 'A'.repeat(43) } }));
    const welcome = socket.framesOf('welcome')[0]!;
    const row = serverRow(t, welcome.serverId);
    expect(row).toMatchObject({ isLocal: true, organizationId: first.organizationId, status: 'connected', daemonKeyId: 'dk_local', publicKey: 'A'.repeat(43) });
  });

  test('two local connections collapse to one record; a stale server id in the hello is ignored', () => {
    const t = createTestApp();
    createOwner(t);
    const daemonKey = { keyId: 'dk_local', publicKey: 'A'.repeat(43) };
    const a = connect(t, { listener: 'unix' }, helloFrame({ hostname: 'panel-host', machineId: 'local-machine', daemonKey }));
    const id = a.socket.framesOf('welcome')[0]!.serverId;
    const b = connect(t, { listener: 'unix' }, helloFrame({ hostname: 'panel-host', machineId: 'local-machine', serverId: '01900000-0000-7000-8000-000000000000', daemonKey }));
    expect(b.socket.framesOf('welcome')).toEqual([{ type: 'welcome', serverId: id, features: HUB_FEATURES }]);
    expect(a.socket.closedWith?.code).toBe(CLOSE_CODES.replaced);
    expect(t.db.select().from(server).where(eq(server.isLocal, true)).all()).toHaveLength(1);
    expect(t.db.select().from(server).all()).toHaveLength(1);
  });

  test('before the install there is no organization: the local daemon is told to retry later', () => {
    const t = createTestApp();
    const { socket } = connect(t, { listener: 'unix' }, helloFrame());
    expect(socket.closedWith?.code).toBe(1013);
    expect(t.db.select().from(server).all()).toEqual([]);
  });
});
