/**
 * Deploys with `driver: overlay` networks, through the API and the hub with fake daemons: the
 * refusal while the fabric is off or not converged on the servers a network spans (nothing
 * enqueued), a spanning deploy's per-server bridges and the `fabric` of each deploy command,
 * subnets kept across deploys and freed by destroy, and a one-server plan that needs no fabric.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { parseComposeText } from '../../../compose/document.ts';
import type { JsonObject } from '../../../compose/values.ts';
import { daemonCommand, deployment, environment, fabricSubnet } from '../../../db/schema/index.ts';
import { assertComposeAccepts } from '../../../../test/compose-checks.ts';
import { clientAs } from '../../../../test/client.ts';
import { enrolledServer, FakeSocket, helloFrame, sayHello } from '../../../../test/daemon.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

const COMPOSE = `services:
  api:
    image: local/busybox:1
    networks: [mesh]
    deploy: {placement: {constraints: [node.labels.role == server]}}
  client:
    image: local/busybox:1
    networks: [mesh]
    deploy: {mode: global, placement: {constraints: [node.labels.role == client]}}
networks:
  mesh:
    driver: overlay
`;

interface DeployPayload {
  compose: string;
  fabric?: { network: string; bridge: string; subnet: string; internal: boolean; peers: { serverId: string; subnet: string }[] }[];
}

async function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const organizationId = tenants.owner.organizationId;
  const owner = clientAs(t, tenants.owner);
  const admin = clientAs(t, tenants.admin);
  const servers = (['client', 'server', 'client'] as const).map((role, i) => {
    const enrolled = enrolledServer(t, organizationId, { name: `h${i + 1}` });
    const socket = new FakeSocket();
    const connection = t.hub.open(socket, { listener: 'tcp', serverId: enrolled.id });
    const send = (frame: object) => t.hub.receive(connection, JSON.stringify(frame));
    sayHello(t, connection, helloFrame({ serverId: enrolled.id, machineId: enrolled.machineId, hostname: `h${i + 1}` }));
    const publicKey = randomBytes(32).toString('base64');
    const report = (appliedHash: string | null) => send({ type: 'fabric', publicKey, candidates: [`198.18.0.1${i + 1}`], backend: 'kernel', appliedHash, error: null, peers: [] });
    report(null);
    return { id: enrolled.id, role, socket, send, report };
  });
  for (const server of servers) expect((await admin('PATCH', `/servers/${server.id}`, { labels: { role: server.role } })).status).toBe(200);
  const project = (await admin('POST', '/projects', { workspaceId: tenants.tree.workspaceId, name: 'meshed' })).json;
  const environmentId = t.db.select().from(environment).where(eq(environment.projectId, project.id)).get()!.id as string;
  expect((await admin('PATCH', `/environments/${environmentId}`, { serverId: servers[0]!.id })).status).toBe(200);
  expect((await admin('PUT', `/projects/${project.id}/compose`, { yaml: COMPOSE })).status).toBe(200);
  const enable = async (enabled: boolean) => expect((await owner('PATCH', `/organizations/${organizationId}/fabric`, { enabled })).status).toBe(200);
  /** Every daemon applies its newest fabric command. */
  const converge = () => {
    for (const server of servers) {
      const command = server.socket.framesOf('command').filter((frame) => frame.kind === 'fabric').at(-1)!;
      const hash = (command.payload as { hash: string }).hash;
      server.send({ type: 'ack', id: command.id });
      server.send({ type: 'result', id: command.id, ok: true, data: { appliedHash: hash } });
      server.report(hash);
    }
  };
  return { t, admin, organizationId, servers, environmentId, projectId: project.id as string, enable, converge };
}

const deployCommands = (t: TestApp) => t.db.select().from(daemonCommand).where(eq(daemonCommand.kind, 'deploy')).orderBy(daemonCommand.id).all();
const subnets = (t: TestApp) =>
  t.db
    .select()
    .from(fabricSubnet)
    .all()
    .map((row) => `${row.network} ${row.subnet}`)
    .sort();

describe('a deploy whose overlay network spans servers', () => {
  test('fabric off: 422 turbofabric_required naming the network and servers, for the deploy and its preview; nothing is enqueued', async () => {
    const { t, admin, environmentId } = await setup();
    for (const res of [await admin('POST', `/environments/${environmentId}/deploy`, {}), await admin('GET', `/environments/${environmentId}/deploy-preview`)]) {
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'turbofabric_required', path: 'networks.mesh.driver' });
      expect(res.json.error.message).toContain('network mesh, whose driver is overlay, has services on 3 servers (h1, h2, h3)');
      expect(res.json.error.message).toContain('overlay fabric, which is off');
    }
    expect(t.db.select().from(deployment).all()).toEqual([]);
    expect(deployCommands(t)).toEqual([]);
    expect(t.db.select().from(environment).where(eq(environment.id, environmentId)).get()!.generation).toBe(0);
  });

  test('fabric on but not converged on a server of the plan: 422 naming the servers and why', async () => {
    const { t, admin, environmentId, enable } = await setup();
    await enable(true);
    const res = await admin('POST', `/environments/${environmentId}/deploy`, {});
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('turbofabric_required');
    expect(res.json.error.message).toContain('the overlay fabric is not ready on h1, h2, h3 (h1: its daemon has not applied the current configuration yet;');
    expect(deployCommands(t)).toEqual([]);
  });

  test('converged: each server runs the network as a bridge of its own subnet, and its deploy command names the others', async () => {
    const { t, admin, servers, environmentId, enable, converge } = await setup();
    await enable(true);
    converge();
    const res = await admin('POST', `/environments/${environmentId}/deploy`, {});
    expect(res.status).toBe(202);
    const commands = deployCommands(t);
    expect(commands.map((command) => command.serverId)).toEqual(servers.map((server) => server.id));
    const payloads = commands.map((command) => command.payload as unknown as DeployPayload);
    const subnetOf = payloads.map((payload) => payload.fabric![0]!.subnet);
    expect(subnetOf).toEqual(['10.210.0.0/24', '10.210.1.0/24', '10.210.2.0/24']);
    expect(payloads[1]!.fabric).toEqual([
      {
        network: 'mesh',
        bridge: 'pnf1',
        subnet: '10.210.1.0/24',
        internal: false,
        peers: [
          { serverId: servers[0]!.id, subnet: '10.210.0.0/24' },
          { serverId: servers[2]!.id, subnet: '10.210.2.0/24' },
        ],
      },
    ]);
    const model = parseComposeText(payloads[1]!.compose).data as { networks: Record<string, JsonObject>; services: Record<string, JsonObject> };
    expect(model.networks.mesh).toMatchObject({ driver: 'bridge', ipam: { config: [{ subnet: '10.210.1.0/24' }] } });
    expect(model.services.api!.extra_hosts).toEqual(['client:10.210.0.2', 'client:10.210.2.2']);
    expect(subnets(t)).toEqual(['mesh 10.210.0.0/24', 'mesh 10.210.1.0/24', 'mesh 10.210.2.0/24']);
    // Compose and the daemon's own policy check accept each server's document with its command's fabric.
    await assertComposeAccepts(
      payloads.map((payload, i) => ({ name: `h${i + 1}`, project: `pn-${environmentId}`, yaml: payload.compose, secretNames: [], fabric: payload.fabric })),
    );

    // A redeploy keeps them; destroy frees them.
    expect((await admin('POST', `/environments/${environmentId}/deploy`, {})).status).toBe(202);
    expect(deployCommands(t).slice(3).map((command) => (command.payload as unknown as DeployPayload).compose)).toEqual(payloads.map((payload) => payload.compose));
    expect((await admin('POST', `/environments/${environmentId}/destroy`, {})).status).toBe(202);
    expect(subnets(t)).toEqual([]);
  });

  test('the network on one server needs no fabric: a plain bridge, no subnet, no fabric in the command', async () => {
    const { t, admin, environmentId, projectId } = await setup();
    const oneServer = COMPOSE.replace('deploy: {mode: global, placement: {constraints: [node.labels.role == client]}}', 'deploy: {placement: {constraints: [node.labels.role == server]}}');
    expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml: oneServer })).status).toBe(200);
    const res = await admin('POST', `/environments/${environmentId}/deploy`, {});
    expect(res.status).toBe(202);
    const [command] = deployCommands(t);
    const payload = command!.payload as unknown as DeployPayload;
    expect(payload.fabric).toBeUndefined();
    expect((parseComposeText(payload.compose).data as { networks: Record<string, JsonObject> }).networks.mesh).toEqual({ driver: 'bridge' });
    expect(subnets(t)).toEqual([]);
  });
});
