/**
 * The hub's work in a busy event-loop turn (src/daemon/hub/slices.ts): beyond the turn's budget,
 * hellos, frames and upgrades wait for later turns, which run them a budget at a time and in
 * arrival order; the tick writes nothing in its own turn. Time is the hub's turn clock, moved by
 * the sockets' sends (each send "takes" the time given), never the machine's.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { enrolledServer, FakeSocket, helloFrame, nextTurn } from '../../test/daemon.ts';
import { createTestApp } from '../../test/harness.ts';
import { createOwner } from '../../test/identity.ts';
import { daemonCommand, event, server } from '../db/schema/index.ts';
import { insertFabricCommand } from '../domain/fabric/queries.ts';
import { silentLogger } from '../lib/logger.ts';
import { DaemonHub } from './hub.ts';
import { TURN_BUDGET_MS } from './hub/slices.ts';

function setup() {
  const t = createTestApp();
  const owner = createOwner(t);
  const turn = { now: 0 };
  const hub = new DaemonHub({ db: t.db, clock: t.clock, logger: silentLogger, turnClock: () => turn.now });
  /** A socket each send of which takes `ms` of the turn. */
  const socket = (ms: number) =>
    new (class extends FakeSocket {
      override send(text: string): void {
        turn.now += ms;
        super.send(text);
      }
    })();
  const daemon = (ms = 1) => {
    const node = enrolledServer(t, owner.organizationId);
    const connection = hub.open(socket(ms), { listener: 'tcp', serverId: node.id });
    const send = (frame: object) => hub.receive(connection, JSON.stringify(frame));
    return { node, connection, socket: connection.socket as FakeSocket, send, hello: () => send(helloFrame({ serverId: node.id, machineId: node.machineId })) };
  };
  const status = (id: string) => t.db.select({ status: server.status }).from(server).where(eq(server.id, id)).get()!.status;
  return { t, owner, turn, hub, daemon, status };
}

describe('a busy turn', () => {
  test("hellos beyond the turn's budget are answered in later turns, a budget at a time, in arrival order", async () => {
    const { hub, daemon } = setup();
    const daemons = Array.from({ length: 2 * TURN_BUDGET_MS + 2 }, () => daemon(1));
    for (const { hello } of daemons) hello();
    const welcomed = () => daemons.map(({ socket }) => socket.framesOf('welcome').length);
    const firstOnes = (n: number) => daemons.map((_, i) => (i < n ? 1 : 0));
    // Each welcome takes 1 ms: the turn holds TURN_BUDGET_MS of them, the rest wait.
    expect(welcomed()).toEqual(firstOnes(TURN_BUDGET_MS));
    expect(hub.isConnected(daemons[TURN_BUDGET_MS]!.node.id)).toBe(false);
    await nextTurn();
    expect(welcomed()).toEqual(firstOnes(2 * TURN_BUDGET_MS));
    await nextTurn();
    expect(welcomed()).toEqual(firstOnes(daemons.length));
    expect(daemons.every(({ node }) => hub.isConnected(node.id))).toBe(true);
  });

  test('frames sent after a hello that waits are handled after it, in order', async () => {
    const { daemon } = setup();
    daemon(TURN_BUDGET_MS).hello(); // spends the turn
    const late = daemon();
    late.hello();
    late.send({ type: 'ping', ts: 7 });
    expect(late.socket.sent).toEqual([]);
    await nextTurn();
    // Handled before its hello, the ping would have closed the connection (4002).
    expect(late.socket.frames().map((frame) => frame.type)).toEqual(['welcome', 'pong']);
    expect(late.socket.closedWith).toBeNull();
  });

  test('a daemon gone while its hello waits leaves no trace: no welcome, no record change, no event', async () => {
    const { t, hub, daemon, status } = setup();
    daemon(TURN_BUDGET_MS).hello();
    const gone = daemon();
    gone.hello();
    hub.closed(gone.connection, 1006, '');
    await nextTurn();
    await nextTurn();
    expect(gone.socket.sent).toEqual([]);
    expect(status(gone.node.id)).toBe('pending');
    expect(t.db.select().from(event).where(eq(event.serverId, gone.node.id)).all()).toEqual([]);
    expect(hub.isConnected(gone.node.id)).toBe(false);
  });

  test('frames a daemon sent before its socket closed are still handled once their turn comes; frames after the hub refused it are not', async () => {
    const { t, hub, daemon } = setup();
    const node = daemon(0);
    node.hello();
    const inAnHour = () => new Date(t.clock.now().getTime() + 3_600_000);
    const acked = insertFabricCommand(t.db, node.node.id, {}, inAnHour());
    hub.dispatch(node.node.id);
    expect(t.db.select().from(daemonCommand).where(eq(daemonCommand.id, acked.id)).get()!.status).toBe('delivered');
    daemon(TURN_BUDGET_MS).hello(); // spends the turn
    node.send({ type: 'ack', id: acked.id });
    hub.closed(node.connection, 1000, '');
    await nextTurn();
    await nextTurn();
    expect(t.db.select().from(daemonCommand).where(eq(daemonCommand.id, acked.id)).get()!.status).toBe('acknowledged');

    const refused = daemon(0);
    refused.hello();
    const ignored = insertFabricCommand(t.db, refused.node.id, {}, inAnHour());
    hub.dispatch(refused.node.id);
    daemon(TURN_BUDGET_MS).hello();
    refused.send({ type: 'nonsense' }); // the hub closes the connection for it
    refused.send({ type: 'ack', id: ignored.id });
    await nextTurn();
    await nextTurn();
    expect(refused.socket.closedWith).not.toBeNull();
    expect(t.db.select().from(daemonCommand).where(eq(daemonCommand.id, ignored.id)).get()!.status).toBe('delivered');
  });

  test('an upgrade beyond the budget waits for a later turn, where its credential is checked; stop() settles what waits', async () => {
    const { t, owner, hub, daemon } = setup();
    const upgrade = (credential: string) => () => {
      if (!hub.authenticate(credential)) throw new Error('401');
      return 'upgraded';
    };
    const early = enrolledServer(t, owner.organizationId);
    expect(hub.admit(upgrade(early.credential))).toBe('upgraded');
    daemon(TURN_BUDGET_MS).hello();
    const rotated = enrolledServer(t, owner.organizationId);
    const waiting = hub.admit(upgrade(rotated.credential));
    expect(waiting).toBeInstanceOf(Promise);
    // A new enrollment replaced the credential while the upgrade waited.
    t.db.update(server).set({ credentialHash: 'rotated' }).where(eq(server.id, rotated.id)).run();
    await expect(waiting).rejects.toThrow('401');

    daemon(TURN_BUDGET_MS).hello();
    const atStop = hub.admit(upgrade(early.credential));
    hub.stop();
    expect(await atStop).toBe('upgraded');
  });

  test('a tick writes nothing in its own turn: last_seen_at after it, waiting hellos and disconnects in their batches', async () => {
    const { t, hub, daemon, status } = setup();
    const seen = daemon(0);
    seen.hello();
    hub.flushHellos();
    const before = t.db.select().from(server).where(eq(server.id, seen.node.id)).get()!.lastSeenAt!.getTime();
    t.clock.advance(5_000);
    seen.send({ type: 'pong', ts: 1 });
    const dropped = Array.from({ length: 3 }, () => daemon(0));
    for (const { hello } of dropped) hello();
    hub.flushHellos();
    for (const { connection } of dropped) hub.closed(connection, 1006, '');
    hub.tick();
    expect(t.db.select().from(server).where(eq(server.id, seen.node.id)).get()!.lastSeenAt!.getTime()).toBe(before);
    expect(dropped.map(({ node }) => status(node.id))).toEqual(['connected', 'connected', 'connected']);
    await nextTurn();
    expect(t.db.select().from(server).where(eq(server.id, seen.node.id)).get()!.lastSeenAt!.getTime()).toBe(before + 5_000);
    expect(dropped.map(({ node }) => status(node.id))).toEqual(['disconnected', 'disconnected', 'disconnected']);
  });

  test('disconnects a failed write left are written again at the next tick', async () => {
    const { t, hub, daemon, status } = setup();
    const dropped = daemon(0);
    dropped.hello();
    hub.flushHellos();
    t.sqlite.run("CREATE TRIGGER refuse BEFORE UPDATE OF status ON server WHEN NEW.status = 'disconnected' BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END");
    hub.closed(dropped.connection, 1006, '');
    await nextTurn();
    expect(status(dropped.node.id)).toBe('connected');
    t.sqlite.run('DROP TRIGGER refuse');
    await nextTurn();
    expect(status(dropped.node.id)).toBe('connected'); // not asked again every turn
    hub.tick();
    await nextTurn();
    expect(status(dropped.node.id)).toBe('disconnected');
  });
});
