/**
 * The overlay fabric through the API and the hub, with fake daemons: the owner's opt-in, members
 * joining with a mesh address and port each, their configurations as fabric commands, the
 * hashes daemons report (converged / pending / error), reconvergence on a new key, an endpoint,
 * a deletion, and taking it down; the ranges and who may change them.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import type { FabricConfig } from '../../../contract/fabric.ts';
import { daemonCommand, fabricMember } from '../../../db/schema/index.ts';
import { clientAs } from '../../../../test/client.ts';
import { enrolledServer, FakeSocket, helloFrame, sayHello } from '../../../../test/daemon.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

const wireguardKey = () => randomBytes(32).toString('base64');

/** A connected daemon: its server, its socket, and what it reports. */
function connect(t: TestApp, organizationId: string, name: string, address: string) {
  const enrolled = enrolledServer(t, organizationId, { name });
  const open = () => {
    const socket = new FakeSocket();
    const connection = t.hub.open(socket, { listener: 'tcp', serverId: enrolled.id });
    const send = (frame: object) => t.hub.receive(connection, JSON.stringify(frame));
    sayHello(t, connection, helloFrame({ serverId: enrolled.id, machineId: enrolled.machineId, hostname: name }));
    return { socket, send };
  };
  let current = open();
  const daemon = {
    id: enrolled.id,
    name,
    publicKey: wireguardKey(),
    candidates: [address],
    send: (frame: object) => current.send(frame),
    /** A new connection of the same daemon (the older one is replaced). */
    reconnect: () => {
      current = open();
    },
    /** The daemon's fabric frame. */
    report: (fields: Record<string, unknown> = {}) =>
      daemon.send({ type: 'fabric', publicKey: daemon.publicKey, candidates: daemon.candidates, backend: 'userspace', appliedHash: null, error: null, peers: [], ...fields }),
    /** Fabric commands sent to it, in order. */
    commands: () => current.socket.framesOf('command').filter((frame) => frame.kind === 'fabric'),
    /** Acks and applies the newest fabric command, as the agent would; answers its payload. */
    apply: () => {
      const command = daemon.commands().at(-1)!;
      daemon.send({ type: 'ack', id: command.id });
      const payload = command.payload as { state: string; hash?: string };
      daemon.send({ type: 'result', id: command.id, ok: true, data: { appliedHash: payload.hash ?? null } });
      daemon.report({ appliedHash: payload.hash ?? null });
      return payload;
    },
  };
  return daemon;
}
type Daemon = ReturnType<typeof connect>;

async function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const organizationId = tenants.owner.organizationId;
  const owner = clientAs(t, tenants.owner);
  const admin = clientAs(t, tenants.admin);
  const daemons = [connect(t, organizationId, 'h1', '198.18.0.11'), connect(t, organizationId, 'h2', '198.18.0.12'), connect(t, organizationId, 'h3', '198.18.0.13')];
  for (const daemon of daemons) daemon.report();
  const view = async () => (await admin('GET', `/organizations/${organizationId}/fabric`)).json;
  const enable = async (enabled = true) => expect((await owner('PATCH', `/organizations/${organizationId}/fabric`, { enabled })).status).toBe(200);
  return { t, tenants, organizationId, owner, admin, daemons, view, enable };
}

const configOf = (payload: unknown) => (payload as { config: FabricConfig }).config;
/** The states of the daemons' servers (the seeded tree's own server never reports a key). */
const stateOf = (view: { servers: { name: string; state: string }[] }) => Object.fromEntries(view.servers.filter((server) => /^h\d$/.test(server.name)).map((server) => [server.name, server.state]));

describe('the fabric setting', () => {
  test('off by default: every server is not a member and nothing is sent; turning it on is the owner’s', async () => {
    const { t, tenants, organizationId, admin, daemons, view } = await setup();
    const current = await view();
    expect(current).toMatchObject({ enabled: false, meshRange: '10.209.0.0/16', containerRange: '10.210.0.0/16' });
    expect(new Set(current.servers.map((server: { state: string; reason: string }) => `${server.state}: ${server.reason}`))).toEqual(new Set(['not_member: the fabric is off']));
    expect(daemons.flatMap((daemon) => daemon.commands())).toEqual([]);
    expect((await admin('PATCH', `/organizations/${organizationId}/fabric`, { enabled: true })).status).toBe(403);
    expect((await admin('GET', `/organizations/${tenants.foreign.organizationId}/fabric`)).status).toBe(404);
    expect((await t.request('GET', `/api/client/v1/organizations/${organizationId}/fabric`)).status).toBe(401);
  });

  test('on: every server with a key joins with its own address and port, and gets every other as a peer', async () => {
    const { daemons, view, enable, t } = await setup();
    await enable();
    const configs = daemons.map((daemon) => configOf(daemon.commands()[0]!.payload));
    expect(configs.map((config) => [config.address, config.listenPort])).toEqual([
      ['10.209.0.1/16', 51820],
      ['10.209.0.2/16', 51821],
      ['10.209.0.3/16', 51822],
    ]);
    expect(configs[1]!.peers).toEqual([
      { serverId: daemons[0]!.id, publicKey: daemons[0]!.publicKey, meshAddress: '10.209.0.1', endpoint: '198.18.0.11:51820' },
      { serverId: daemons[2]!.id, publicKey: daemons[2]!.publicKey, meshAddress: '10.209.0.3', endpoint: '198.18.0.13:51822' },
    ]);
    const current = await view();
    expect(stateOf(current)).toEqual({ h1: 'pending', h2: 'pending', h3: 'pending' });
    expect(current.servers.find((server: { name: string }) => !/^h\d$/.test(server.name))).toMatchObject({
      state: 'not_member',
      reason: 'its daemon has not reported a WireGuard key yet (connect it, or update it to this version)',
      meshAddress: null,
    });
    // The commands are durable rows, like deploys, with no deployment.
    expect(t.db.select().from(daemonCommand).where(eq(daemonCommand.kind, 'fabric')).all().map((row) => [row.deploymentId, row.status])).toEqual(daemons.map(() => [null, 'delivered']));
  });

  test('a daemon applying the configuration converges; its handshakes are shown per peer', async () => {
    const { daemons, view, enable } = await setup();
    await enable();
    for (const daemon of daemons.slice(0, 2)) daemon.apply();
    daemons[0]!.report({ appliedHash: (daemons[0]!.commands()[0]!.payload as { hash: string }).hash, peers: [{ publicKey: daemons[1]!.publicKey, lastHandshakeAt: 1_700_000_000_000, endpoint: '198.18.0.12:51821' }] });
    const current = await view();
    expect(stateOf(current)).toEqual({ h1: 'converged', h2: 'converged', h3: 'pending' });
    const h1 = current.servers.find((server: { name: string }) => server.name === 'h1');
    expect(h1.peers).toEqual([
      { serverId: daemons[1]!.id, name: 'h2', endpoint: '198.18.0.12:51821', lastHandshakeAt: '2023-11-14T22:13:20.000Z' },
      { serverId: daemons[2]!.id, name: 'h3', endpoint: '198.18.0.13:51822', lastHandshakeAt: null },
    ]);
    expect(h1).toMatchObject({ meshAddress: '10.209.0.1', listenPort: 51820, reason: null, publicKey: daemons[0]!.publicKey });
    expect(current.servers.find((server: { name: string }) => server.name === 'h3').reason).toBe('its daemon has not applied the current configuration yet');
  });

  test('a failed apply is an error with its reason, retried when the daemon connects again, not on every report', async () => {
    const { daemons, view, enable } = await setup();
    await enable();
    const h1 = daemons[0]!;
    const command = h1.commands()[0]!;
    h1.send({ type: 'ack', id: command.id });
    h1.send({ type: 'result', id: command.id, ok: false, error: { code: 'wireguard_unavailable', message: 'install wireguard-tools' } });
    h1.report({ error: { code: 'wireguard_unavailable', message: 'install wireguard-tools' } });
    const current = await view();
    expect(current.servers.find((server: { name: string }) => server.name === 'h1')).toMatchObject({ state: 'error', reason: 'wireguard_unavailable: install wireguard-tools' });
    expect(h1.commands()).toHaveLength(1);
    h1.report();
    expect(h1.commands()).toHaveLength(1);
    h1.reconnect();
    h1.report();
    expect(h1.commands().map((frame) => frame.payload)).toEqual([command.payload]);
  });
});

describe('reconvergence', () => {
  test('a server joining later: it gets everyone, everyone gets it; the others keep their addresses', async () => {
    const { t, organizationId, daemons, enable } = await setup();
    await enable();
    for (const daemon of daemons) daemon.apply();
    const late = connect(t, organizationId, 'h4', '198.18.0.14');
    late.report();
    expect(configOf(late.commands()[0]!.payload)).toMatchObject({ address: '10.209.0.4/16', listenPort: 51823 });
    for (const daemon of daemons) {
      expect(daemon.commands()).toHaveLength(2);
      expect(configOf(daemon.commands()[1]!.payload).peers.map((peer) => peer.serverId)).toContain(late.id);
    }
  });

  test('a new key (the server rotated it): every peer gets it in place of the old; the server keeps its address and port', async () => {
    const { daemons, view, enable } = await setup();
    await enable();
    for (const daemon of daemons) daemon.apply();
    const [h1, h2, h3] = daemons as [Daemon, Daemon, Daemon];
    const { config, hash } = h2.commands().at(-1)!.payload as { config: FabricConfig; hash: string };
    const oldKey = h2.publicKey;
    // Its daemon restarted without its key file: a new pair, its configuration applied again with it.
    h2.publicKey = wireguardKey();
    h2.reconnect();
    h2.report({ appliedHash: hash });
    expect(h2.commands()).toEqual([]);
    for (const peer of [h1, h3]) {
      const keys = configOf(peer.commands().at(-1)!.payload).peers.map((entry) => entry.publicKey);
      expect(keys).toContain(h2.publicKey);
      expect(keys).not.toContain(oldKey);
    }
    expect(stateOf(await view())).toEqual({ h1: 'pending', h2: 'converged', h3: 'pending' });
    for (const peer of [h1, h3]) peer.apply();
    const after = await view();
    expect(stateOf(after)).toEqual({ h1: 'converged', h2: 'converged', h3: 'converged' });
    expect(after.servers.find((server: { name: string }) => server.name === 'h2')).toMatchObject({ publicKey: h2.publicKey, meshAddress: config.address.split('/')[0], listenPort: config.listenPort });
  });

  test('an admin asks for a new key: its daemon gets the command (kept when a configuration supersedes the others), once; reporting the new key reconverges the peers', async () => {
    const { t, tenants, admin, daemons, view, enable } = await setup();
    await enable();
    for (const daemon of daemons) daemon.apply();
    const [h1, h2, h3] = daemons as [Daemon, Daemon, Daemon];
    const member = clientAs(t, tenants.member);
    expect((await member('POST', `/servers/${h2.id}/fabric/rotate-key`)).status).toBe(403);
    const asked = await admin('POST', `/servers/${h2.id}/fabric/rotate-key`);
    expect(asked.status).toBe(202);
    const requestedAt = asked.json.servers.find((server: { name: string }) => server.name === 'h2').keyRotationRequestedAt;
    expect(requestedAt).toBeString();
    expect(h2.commands().at(-1)!.payload).toEqual({ state: 'rotate-key' });
    // Asked again while it waits: the same request. A new configuration for h2 leaves it open.
    expect((await admin('POST', `/servers/${h2.id}/fabric/rotate-key`)).json.servers.find((server: { name: string }) => server.name === 'h2').keyRotationRequestedAt).toBe(requestedAt);
    expect((await admin('PATCH', `/servers/${h1.id}`, { fabricEndpoint: '192.0.2.1' })).status).toBe(200);
    const open = t.db.select().from(daemonCommand).where(and(eq(daemonCommand.kind, 'fabric'), eq(daemonCommand.serverId, h2.id), eq(daemonCommand.status, 'delivered'))).all();
    expect(open.map((row) => (row.payload as { state: string }).state).sort()).toEqual(['rotate-key', 'up']);

    // The daemon rotates: it answers the command and reports its new key with its configuration in place.
    const rotation = h2.commands().find((command) => (command.payload as { state: string }).state === 'rotate-key')!;
    const oldKey = h2.publicKey;
    h2.publicKey = wireguardKey();
    h2.send({ type: 'ack', id: rotation.id });
    h2.send({ type: 'result', id: rotation.id, ok: true, data: { publicKey: h2.publicKey } });
    h2.apply();
    for (const peer of [h1, h3]) {
      const keys = configOf(peer.commands().at(-1)!.payload).peers.map((entry) => entry.publicKey);
      expect(keys).toContain(h2.publicKey);
      expect(keys).not.toContain(oldKey);
      peer.apply();
    }
    const after = await view();
    expect(stateOf(after)).toEqual({ h1: 'converged', h2: 'converged', h3: 'converged' });
    expect(after.servers.find((server: { name: string }) => server.name === 'h2')).toMatchObject({ publicKey: h2.publicKey, keyRotationRequestedAt: null });
  });

  test("another organization's server is 404 and gets nothing", async () => {
    const { t, tenants, daemons } = await setup();
    const stranger = clientAs(t, tenants.stranger);
    expect((await stranger('POST', `/servers/${daemons[0]!.id}/fabric/rotate-key`)).status).toBe(404);
    expect(daemons[0]!.commands()).toEqual([]);
  });

  test('an endpoint set by an admin changes the others’ configurations only; an unchanged one sends nothing', async () => {
    const { admin, daemons, enable } = await setup();
    await enable();
    for (const daemon of daemons) daemon.apply();
    const res = await admin('PATCH', `/servers/${daemons[1]!.id}`, { fabricEndpoint: 'h2.example.net', datacenter: 'fra1' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ fabricEndpoint: 'h2.example.net', datacenter: 'fra1', fabricCandidates: ['198.18.0.12'], wireguardPublicKey: daemons[1]!.publicKey });
    expect(daemons.map((daemon) => daemon.commands().length)).toEqual([2, 1, 2]);
    expect(configOf(daemons[0]!.commands()[1]!.payload).peers[0]!.endpoint).toBe('h2.example.net:51821');
    expect((await admin('PATCH', `/servers/${daemons[1]!.id}`, { fabricEndpoint: 'h2.example.net' })).status).toBe(200);
    expect(daemons.map((daemon) => daemon.commands().length)).toEqual([2, 1, 2]);
    expect((await admin('PATCH', `/servers/${daemons[1]!.id}`, { fabricEndpoint: 'bad host\n[Peer]' })).status).toBe(422);
  });

  test('a newer configuration supersedes one the daemon has not finished: it is never delivered again', async () => {
    const { t, admin, daemons, enable } = await setup();
    await enable();
    expect((await admin('PATCH', `/servers/${daemons[1]!.id}`, { fabricEndpoint: '192.0.2.2' })).status).toBe(200);
    const rows = t.db.select().from(daemonCommand).where(and(eq(daemonCommand.kind, 'fabric'), eq(daemonCommand.serverId, daemons[0]!.id))).orderBy(daemonCommand.id).all();
    expect(rows.map((row) => [row.status, row.error])).toEqual([
      ['expired', 'superseded: a newer fabric configuration replaced it'],
      ['delivered', null],
    ]);
    expect(rows[0]!.payload).toBeNull();
  });

  test('a deleted server vanishes from every peer list; its address and port are the next joiner’s', async () => {
    const { t, organizationId, admin, daemons, enable } = await setup();
    await enable();
    for (const daemon of daemons) daemon.apply();
    expect((await admin('DELETE', `/servers/${daemons[1]!.id}`)).status).toBe(204);
    for (const daemon of [daemons[0]!, daemons[2]!]) {
      expect(configOf(daemon.commands().at(-1)!.payload).peers.map((peer) => peer.serverId)).toEqual([daemon === daemons[0] ? daemons[2]!.id : daemons[0]!.id]);
    }
    const late = connect(t, organizationId, 'h4', '198.18.0.14');
    late.report();
    expect(configOf(late.commands()[0]!.payload)).toMatchObject({ address: '10.209.0.2/16', listenPort: 51821 });
  });

  test('a daemon that lost its configuration (or whose command expired) gets it again on its report', async () => {
    const { t, daemons, enable } = await setup();
    await enable();
    for (const daemon of daemons) daemon.apply();
    t.clock.advance(2 * 60 * 60_000);
    daemons[0]!.report({ appliedHash: null });
    expect(daemons[0]!.commands()).toHaveLength(2);
    expect(daemons[0]!.commands()[1]!.payload).toEqual(daemons[0]!.commands()[0]!.payload);
  });

  test('off: every member takes it down and its allocation is freed', async () => {
    const { t, daemons, view, enable } = await setup();
    await enable();
    for (const daemon of daemons) daemon.apply();
    await enable(false);
    for (const daemon of daemons) expect(daemon.commands().at(-1)!.payload).toEqual({ state: 'down' });
    expect(t.db.select().from(fabricMember).all()).toEqual([]);
    expect(stateOf(await view())).toEqual({ h1: 'not_member', h2: 'not_member', h3: 'not_member' });
  });
});

describe('ranges', () => {
  test('a bad range is 422 naming it; ranges change only while nothing uses them', async () => {
    const { owner, organizationId, enable } = await setup();
    const patch = (body: object) => owner('PATCH', `/organizations/${organizationId}/fabric`, body);
    for (const [body, path] of [
      [{ meshRange: '172.17.0.0/16' }, 'meshRange'],
      [{ meshRange: '10.209.0.1/16' }, 'meshRange'],
      [{ containerRange: '8.8.0.0/16' }, 'containerRange'],
      [{ containerRange: '10.209.0.0/16' }, 'containerRange'],
      [{ unknown: 1 }, 'unknown'],
    ] as const) {
      const res = await patch(body);
      expect([res.status, res.json.error.code, res.json.error.path]).toEqual([422, 'validation_failed', path]);
    }
    const changed = await patch({ meshRange: '10.100.0.0/20', containerRange: '10.101.0.0/16' });
    expect(changed.json).toMatchObject({ meshRange: '10.100.0.0/20', containerRange: '10.101.0.0/16' });
    await enable();
    const refused = await patch({ meshRange: '10.102.0.0/16' });
    expect([refused.status, refused.json.error.code]).toEqual([409, 'fabric_range_in_use']);
  });
});
