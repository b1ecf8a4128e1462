/**
 * Deploys the planner spreads over several servers, through the API and the hub: one command
 * per server with only its replicas and the secrets it needs sealed to it alone, container rows
 * per server, the generation raised once, the planner's refusals enqueuing nothing, servers that
 * drop out stopped, the preview's block per server, stop and destroy on every server, and the
 * deployment's status aggregated from its per-server commands.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { openAsDaemon } from '../../../crypto/index.ts';
import { container, daemonCommand, deployment, environment, server } from '../../../db/schema/index.ts';
import { clientAs } from '../../../../test/client.ts';
import { type EnrolledServer, enrolledServer, FakeSocket, helloFrame, sayHello } from '../../../../test/daemon.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

const SECRET = 'sentinel-placement-secret-5d1e';

const composeOf = (web: string, extra = '') => `services:
  web:
    image: local/busybox:1
    command: ["sleep", "infinity"]
${web}
  db:
    image: local/busybox:1
    command: ["sleep", "infinity"]
${extra}`;
const SPREAD = '    deploy: {replicas: 3, placement: {max_replicas_per_node: 1}}';

interface Payload {
  deploymentId: string;
  project: string;
  compose?: string;
  secrets?: { name: string; envelope: string }[];
  remove?: boolean;
}

async function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const organizationId = tenants.owner.organizationId;
  const admin = clientAs(t, tenants.admin);
  const servers = ['s1', 's2', 's3'].map((name) => enrolledServer(t, organizationId, { name }));
  // Connected, as the hub leaves a server whose daemon said hello.
  const daemons = servers.map((enrolled) => {
    const socket = new FakeSocket();
    const connection = t.hub.open(socket, { listener: 'tcp', serverId: enrolled.id });
    sayHello(t, connection, helloFrame({ serverId: enrolled.id, machineId: enrolled.machineId, hostname: `${enrolled.id.slice(-4)}.lan` }));
    return { enrolled, socket, send: (frame: object) => t.hub.receive(connection, JSON.stringify(frame)) };
  });
  const project = (await admin('POST', '/projects', { workspaceId: tenants.tree.workspaceId, name: 'fleet' })).json;
  const environmentId = t.db.select().from(environment).where(eq(environment.projectId, project.id)).get()!.id as string;
  expect((await admin('PATCH', `/environments/${environmentId}`, { serverId: servers[0]!.id })).status).toBe(200);
  expect((await admin('POST', '/variables', { projectId: project.id, key: 'DB_PASSWORD', value: SECRET, isSecret: true })).status).toBe(201);
  const save = async (yaml: string) => expect((await admin('PUT', `/projects/${project.id}/compose`, { yaml })).status).toBe(200);
  const deploy = () => admin('POST', `/environments/${environmentId}/deploy`, {});
  return { t, admin, servers, daemons, environmentId, save, deploy };
}

const generationOf = (t: TestApp, id: string) => t.db.select().from(environment).where(eq(environment.id, id)).get()!.generation;
const commandsOf = (t: TestApp, deploymentId: string) => t.db.select().from(daemonCommand).where(eq(daemonCommand.deploymentId, deploymentId)).orderBy(daemonCommand.id).all();
const payloadOf = (command: { payload: unknown }) => command.payload as Payload;
const keyOf = (enrolled: EnrolledServer) => ({ serverId: enrolled.id, daemonKeyId: enrolled.keyId, privateKey: enrolled.privateKey });

describe('a deploy over several servers', () => {
  test('replicas 3, at most 1 per server: one command per server with only its replica and secrets sealed to it alone', async () => {
    const { t, servers, environmentId, save, deploy } = await setup();
    await save(composeOf(SPREAD));
    const res = await deploy();
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ serverId: servers[0]!.id, desiredGeneration: 1, status: 'queued' });
    expect(generationOf(t, environmentId)).toBe(1);

    const commands = commandsOf(t, res.json.id);
    expect(commands.map((command) => [command.serverId, command.kind])).toEqual(servers.map((enrolled) => [enrolled.id, 'deploy']));
    for (const [i, command] of commands.entries()) {
      const payload = payloadOf(command);
      expect(payload.compose).toContain(`x-panel:\n  placement:\n    server_id: ${servers[i]!.id}\n`);
      // db is anchored: only the anchor runs it (and needs its secret).
      expect(payload.compose!.includes('\n  db:\n')).toBe(i === 0);
      expect(payload.secrets!.map((secret) => secret.name)).toEqual(i === 0 ? ['web__db_password', 'db__db_password'] : ['web__db_password']);
      for (const secret of payload.secrets!) {
        expect(openAsDaemon(keyOf(servers[i]!), secret.envelope)).toBe(SECRET);
        for (const other of servers.filter((_, j) => j !== i)) expect(() => openAsDaemon(keyOf(other), secret.envelope)).toThrow();
      }
    }
    const rows = t.db.select().from(container).all();
    const web = rows.filter((row) => row.composeServiceName === 'web').sort((a, b) => a.ordinal - b.ordinal);
    expect(web.map((row) => [row.ordinal, row.serverId, row.status, row.containerId])).toEqual(servers.map((enrolled, i) => [i + 1, enrolled.id, 'pending', null]));
    expect(web.map((row) => row.containerName)).toEqual([1, 2, 3].map((ordinal) => `${web[0]!.serviceId}-${ordinal}`));
    expect(JSON.stringify(t.sqlite.query('SELECT * FROM daemon_command').all()) + res.text).not.toContain(SECRET);
  });

  test('a node.labels constraint places the service on the labelled server; relabelling moves it and stops the server it left', async () => {
    const { t, admin, servers, environmentId, save, deploy } = await setup();
    await save(composeOf('    deploy: {placement: {constraints: [node.labels.disk == ssd]}}'));
    expect((await admin('PATCH', `/servers/${servers[2]!.id}`, { labels: { disk: 'ssd' } })).status).toBe(200);
    const first = (await deploy()).json;
    expect(commandsOf(t, first.id).map((command) => [command.serverId, command.kind])).toEqual([
      [servers[0]!.id, 'deploy'],
      [servers[2]!.id, 'deploy'],
    ]);
    expect(payloadOf(commandsOf(t, first.id)[1]!).compose).toContain('\n  web:\n');

    expect((await admin('PATCH', `/servers/${servers[2]!.id}`, { labels: {} })).status).toBe(200);
    expect((await admin('PATCH', `/servers/${servers[1]!.id}`, { labels: { disk: 'ssd' } })).status).toBe(200);
    const second = await deploy();
    expect(second.status).toBe(202);
    expect(second.json.warnings).toContain(`services.web replica 1 moves from server s3 to s2`);
    expect(commandsOf(t, second.json.id).map((command) => [command.serverId, command.kind])).toEqual([
      [servers[0]!.id, 'deploy'],
      [servers[1]!.id, 'deploy'],
      [servers[2]!.id, 'stop'],
    ]);
    // A server the plan dropped is stopped with removal (compose down), not a user's stop that keeps containers.
    expect(payloadOf(commandsOf(t, second.json.id)[2]!)).toEqual({ deploymentId: second.json.id, project: `pn-${environmentId}`, remove: true });
    const web = t.db.select().from(container).all().find((row) => row.composeServiceName === 'web')!;
    expect(web.serverId).toBe(servers[1]!.id);
  });

  test('the planner refuses: the specification code and path, and nothing is enqueued or raised', async () => {
    const { t, servers, environmentId, save, deploy, admin } = await setup();
    const cases: [string, string, number, string, string?][] = [
      [composeOf('    deploy: {placement: {constraints: [node.labels.disk == nvme]}}'), 'constraint_unsatisfiable', 422, 'services.web.deploy.placement.constraints.0'],
      [composeOf('    deploy: {replicas: 4, placement: {max_replicas_per_node: 1}}'), 'max_replicas_per_node_exceeded', 422, 'services.web.deploy.placement.max_replicas_per_node'],
      [composeOf('    ports: ["8080:80"]\n    deploy: {replicas: 4}'), 'host_port_conflict', 422, 'services.web.ports'],
      [composeOf('    deploy: {placement: {constraints: [node.hostname == nowhere]}}', '    network_mode: "service:web"\n    deploy: {placement: {constraints: [node.id != nobody]}}'), 'constraint_unsatisfiable', 422, 'services.web.deploy.placement.constraints.0'],
      [composeOf('    deploy: {replicas: 2}\n    networks: [mesh]', 'networks:\n  mesh: {driver: overlay}\n'), 'turbofabric_required', 422, 'networks.mesh.driver'],
      [composeOf('    deploy: {placement: {constraints: [node.labels.disk == ssd]}}', '    network_mode: "service:web"\n    deploy: {placement: {constraints: [node.labels.disk != ssd]}}'), 'colocation_conflict', 422, 'services.db.network_mode', 'ssd'],
    ];
    for (const [yaml, code, status, path, label] of cases) {
      await save(yaml);
      if (label) expect((await admin('PATCH', `/servers/${servers[1]!.id}`, { labels: { disk: label } })).status).toBe(200);
      for (const res of [await deploy(), await admin('GET', `/environments/${environmentId}/deploy-preview`)]) {
        expect({ status: res.status, code: res.json.error.code, path: res.json.error.path }).toEqual({ status, code, path });
        expect(res.json.error.message.length).toBeGreaterThan(20);
      }
    }
    expect(generationOf(t, environmentId)).toBe(0);
    expect(t.db.select().from(deployment).all()).toEqual([]);
    expect(t.db.select().from(daemonCommand).all()).toEqual([]);
    expect(t.db.select().from(container).all()).toEqual([]);
  });

  test('no server connected and a scheduled service: 409 no_eligible_server; anchored-only plans still queue for the offline anchor', async () => {
    const { t, save, deploy } = await setup();
    t.db.update(server).set({ status: 'disconnected' }).run();
    await save(composeOf('    deploy: {replicas: 1}'));
    const refused = await deploy();
    expect([refused.status, refused.json.error.code, refused.json.error.path]).toEqual([409, 'no_eligible_server', 'services.web']);
    await save(composeOf(''));
    expect((await deploy()).status).toBe(202);
  });

  test('scaling to 1: the servers that drop out get a stop in the same deployment; their reports mark the dropped replicas exited', async () => {
    const { t, servers, daemons, environmentId, save, deploy, admin } = await setup();
    await save(composeOf(SPREAD));
    const first = (await deploy()).json;
    // Every daemon runs its command and reports its containers running.
    for (const daemon of daemons) {
      const frame = daemon.socket.framesOf('command').find((item) => (item.payload as Payload).deploymentId === first.id)!;
      const rows = t.db.select().from(container).where(eq(container.serverId, daemon.enrolled.id)).all();
      daemon.send({ type: 'ack', id: frame.id });
      daemon.send({ type: 'report', commandId: frame.id, project: `pn-${environmentId}`, containers: rows.map((row) => ({ containerId: `c-${row.id}`, name: row.containerName, service: row.composeServiceName, state: 'running' })) });
      daemon.send({ type: 'result', id: frame.id, ok: true });
    }
    expect((await admin('GET', `/deployments/${first.id}`)).json.status).toBe('succeeded');

    await save(composeOf('    deploy: {replicas: 1, placement: {max_replicas_per_node: 1}}'));
    const second = (await deploy()).json;
    expect(commandsOf(t, second.id).map((command) => [command.serverId, command.kind])).toEqual([
      [servers[0]!.id, 'deploy'],
      [servers[1]!.id, 'stop'],
      [servers[2]!.id, 'stop'],
    ]);
    expect(generationOf(t, environmentId)).toBe(2);
    for (const daemon of daemons.slice(1)) {
      const frame = daemon.socket.framesOf('command').find((item) => item.kind === 'stop')!;
      daemon.send({ type: 'report', commandId: frame.id, project: `pn-${environmentId}`, containers: [] });
      daemon.send({ type: 'result', id: frame.id, ok: true });
    }
    const web = t.db.select().from(container).all().filter((row) => row.composeServiceName === 'web').sort((a, b) => a.ordinal - b.ordinal);
    expect(web.map((row) => [row.ordinal, row.serverId, row.status, row.containerId])).toEqual([
      // Still running there until the new deploy reports: pre-allocation hides nothing that runs.
      [1, servers[0]!.id, 'running', expect.stringMatching(/^c-/)],
      [2, servers[1]!.id, 'exited', null],
      [3, servers[2]!.id, 'exited', null],
    ]);
    // A third deploy has nothing left to stop.
    expect(commandsOf(t, (await deploy()).json.id).map((command) => command.kind)).toEqual(['deploy']);
  });

  test('status: running at the first ack, succeeded only when every server succeeded; a failure names its server', async () => {
    const { servers, daemons, save, deploy, admin } = await setup();
    await save(composeOf(SPREAD));
    const statusOf = async (id: string) => (await admin('GET', `/deployments/${id}`)).json;
    const frameOf = (i: number, id: string) => daemons[i]!.socket.framesOf('command').find((item) => (item.payload as Payload).deploymentId === id)!;

    const ok = (await deploy()).json;
    daemons[0]!.send({ type: 'ack', id: frameOf(0, ok.id).id });
    expect((await statusOf(ok.id)).status).toBe('running');
    for (const i of [0, 1]) daemons[i]!.send({ type: 'result', id: frameOf(i, ok.id).id, ok: true });
    expect((await statusOf(ok.id)).status).toBe('running');
    daemons[2]!.send({ type: 'result', id: frameOf(2, ok.id).id, ok: true });
    expect(await statusOf(ok.id)).toMatchObject({ status: 'succeeded', error: null });

    const partial = (await deploy()).json;
    daemons[1]!.send({ type: 'result', id: frameOf(1, partial.id).id, ok: false, error: { code: 'compose_failed', message: 'port is already allocated' } });
    expect((await statusOf(partial.id)).status).toBe('queued');
    for (const i of [0, 2]) daemons[i]!.send({ type: 'result', id: frameOf(i, partial.id).id, ok: true });
    const failed = await statusOf(partial.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(`1 of 3 servers failed: s2 (${servers[1]!.id}) deploy: compose_failed: port is already allocated`);
  });

  test('the preview: one block per server, each with its own document, rows and secrets; the servers a deploy would stop; nothing enqueued', async () => {
    const { t, admin, servers, environmentId, save, deploy } = await setup();
    await save(composeOf(SPREAD));
    await deploy();
    await save(composeOf('    deploy: {replicas: 2, placement: {max_replicas_per_node: 1}}'));
    const before = t.db.select().from(daemonCommand).all().length;
    const res = await admin('GET', `/environments/${environmentId}/deploy-preview`);
    expect(res.status).toBe(200);
    expect(res.json.server).toEqual({ id: servers[0]!.id, name: 's1' });
    expect(res.json.placementServerId).toBe(servers[0]!.id);
    expect(res.json.blocks.map((block: { serverId: string; serverName: string }) => [block.serverId, block.serverName])).toEqual([
      [servers[0]!.id, 's1'],
      [servers[1]!.id, 's2'],
    ]);
    for (const block of res.json.blocks) expect(block.yaml).toContain(`server_id: ${block.serverId}`);
    expect(res.json.blocks[1].containers.map((row: { ordinal: number }) => row.ordinal)).toEqual([2]);
    expect(res.json.blocks[1].secrets.map((secret: { name: string }) => secret.name)).toEqual(['web__db_password']);
    expect(res.json.stops).toEqual([{ id: servers[2]!.id, name: 's3' }]);
    expect(res.text).not.toContain(SECRET);
    expect(t.db.select().from(daemonCommand).all()).toHaveLength(before);
    expect(generationOf(t, environmentId)).toBe(1);
  });

  test('stop and destroy go to every server the environment runs on', async () => {
    const { t, admin, servers, environmentId, save, deploy } = await setup();
    await save(composeOf(SPREAD));
    await deploy();
    for (const action of ['stop', 'destroy']) {
      const res = await admin('POST', `/environments/${environmentId}/${action}`);
      expect(res.status).toBe(202);
      expect(res.json.serverId).toBe(servers[0]!.id);
      expect(commandsOf(t, res.json.id).map((command) => [command.serverId, command.kind])).toEqual(servers.map((enrolled) => [enrolled.id, action]));
    }
  });
});
