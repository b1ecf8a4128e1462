/**
 * POST /environments/:id/deploy|stop|destroy and GET /deployments: the spec's deploy resolution
 * table, the strict body, generation +1 per deploy, pending containers, the command payload
 * (secrets only as pndaemon envelopes the target daemon opens), delivery through the hub and a
 * whole deploy -> report -> result round.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { openAsDaemon } from '../../../crypto/index.ts';
import { PANEL_LABELS } from '../../../compose/naming.ts';
import { container, daemonCommand, deployment, environment, organization, service } from '../../../db/schema/index.ts';
import { clientAs } from '../../../../test/client.ts';
import { enrolledServer, FakeSocket, helloFrame, sayHello } from '../../../../test/daemon.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

const SECRET = 'sentinel-secret-81c2';
const COMPOSE = `services:
  web:
    image: local/busybox:1
    command: ["sleep", "infinity"]
  worker:
    image: local/busybox:1
    command: ["sleep", "infinity"]
`;

async function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const organizationId = tenants.owner.organizationId;
  const admin = clientAs(t, tenants.admin);
  const s1 = enrolledServer(t, organizationId, { name: 's1' });
  const s2 = enrolledServer(t, organizationId, { name: 's2' });
  const project = (await admin('POST', '/projects', { workspaceId: tenants.tree.workspaceId, name: 'shop' })).json;
  expect((await admin('PUT', `/projects/${project.id}/compose`, { yaml: COMPOSE })).status).toBe(200);
  expect((await admin('POST', '/variables', { projectId: project.id, key: 'DB_PASSWORD', value: SECRET, isSecret: true })).status).toBe(201);
  const environmentId = t.db.select().from(environment).where(eq(environment.projectId, project.id)).get()!.id;
  const pin = async (envId: string, serverId: string | null) => expect((await admin('PATCH', `/environments/${envId}`, { serverId })).status).toBe(200);
  const deploy = (envId = environmentId, body?: unknown) => admin('POST', `/environments/${envId}/deploy`, body);
  return { t, tenants, admin, s1, s2, projectId: project.id as string, environmentId, pin, deploy };
}

const generationOf = (t: ReturnType<typeof createTestApp>, id: string) => t.db.select().from(environment).where(eq(environment.id, id)).get()!.generation;
const commandsOf = (t: ReturnType<typeof createTestApp>, deploymentId: string) => t.db.select().from(daemonCommand).where(eq(daemonCommand.deploymentId, deploymentId)).all();

describe('deploy resolution', () => {
  test('pin set: anchored on the pinned server (whatever the project default)', async () => {
    const { t, admin, s1, s2, projectId, environmentId, pin, deploy } = await setup();
    await pin(environmentId, s1.id);
    expect((await admin('PATCH', `/projects/${projectId}`, { options: { defaultServerId: s2.id } })).status).toBe(200);
    const res = await deploy();
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ environmentId, serverId: s1.id, kind: 'deploy', status: 'queued', desiredGeneration: 1 });
    expect(commandsOf(t, res.json.id).map((row) => row.serverId)).toEqual([s1.id]);
  });

  test('pin unset, project default set: anchored on the default', async () => {
    const { t, admin, s2, projectId, deploy } = await setup();
    expect((await admin('PATCH', `/projects/${projectId}`, { options: { defaultServerId: s2.id } })).status).toBe(200);
    const res = await deploy();
    expect(res.status).toBe(202);
    expect(res.json.serverId).toBe(s2.id);
    expect(commandsOf(t, res.json.id).map((row) => row.serverId)).toEqual([s2.id]);
  });

  test('neither: 409 server_placement_required, and nothing is written', async () => {
    const { t, environmentId, deploy } = await setup();
    const res = await deploy();
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('server_placement_required');
    expect(generationOf(t, environmentId)).toBe(0);
    expect(t.db.select().from(deployment).where(eq(deployment.environmentId, environmentId)).all()).toEqual([]);
    expect(t.db.select().from(daemonCommand).all()).toEqual([]);
  });

  test('different environments of one project resolve to different servers', async () => {
    const { t, admin, s1, s2, projectId, environmentId, pin, deploy } = await setup();
    const staging = (await admin('POST', '/environments', { projectId, name: 'staging' })).json.id as string;
    await pin(environmentId, s1.id);
    await pin(staging, s2.id);
    const production = (await deploy()).json;
    const stage = (await deploy(staging)).json;
    expect([production.serverId, stage.serverId]).toEqual([s1.id, s2.id]);
    expect(commandsOf(t, production.id)[0]!.serverId).toBe(s1.id);
    expect(commandsOf(t, stage.id)[0]!.serverId).toBe(s2.id);
    const stagingContainers = t.db.select().from(container).where(eq(container.serverId, s2.id)).all();
    expect(stagingContainers).toHaveLength(2);
  });
});

describe('deploy body', () => {
  test('ref is 501 source_ref_unsupported; a server field or any unknown field is 422; flags are accepted', async () => {
    const { t, s1, environmentId, pin, deploy } = await setup();
    await pin(environmentId, s1.id);
    const ref = await deploy(environmentId, { ref: 'main' });
    expect(ref.status).toBe(501);
    expect(ref.json.error.code).toBe('source_ref_unsupported');
    for (const field of ['serverId', 'server', 'placement']) {
      const res = await deploy(environmentId, { [field]: s1.id });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(field);
    }
    expect((await deploy(environmentId, { noCache: 'yes' })).status).toBe(422);
    expect(generationOf(t, environmentId)).toBe(0);
    expect((await deploy(environmentId, { acknowledgeHealthCheckWarnings: true, noCache: true })).status).toBe(202);
    expect((await deploy(environmentId)).status).toBe(202);
  });

  test('401 without credentials, 403 for a member, 404 for another organization', async () => {
    const { t, tenants, s1, environmentId, pin } = await setup();
    await pin(environmentId, s1.id);
    for (const [caller, status] of [[undefined, 401], [tenants.member, 403], [tenants.stranger, 404]] as const) {
      const as = clientAs(t, caller);
      for (const action of ['deploy', 'stop', 'destroy']) expect((await as('POST', `/environments/${environmentId}/${action}`)).status).toBe(status);
      expect((await as('GET', `/deployments?environmentId=${environmentId}`)).status).toBe(status === 403 ? 200 : status);
    }
    expect(t.db.select().from(deployment).all()).toEqual([]);
  });
});

describe('what a deploy commits', () => {
  test('generation +1 per deploy, copied into desired_generation', async () => {
    const { t, s1, environmentId, pin, deploy } = await setup();
    await pin(environmentId, s1.id);
    const generations = [];
    for (let i = 0; i < 3; i++) generations.push((await deploy()).json.desiredGeneration);
    expect(generations).toEqual([1, 2, 3]);
    expect(generationOf(t, environmentId)).toBe(3);
  });

  test('containers are pre-allocated pending with no container id; a container still on the server keeps its row until the deploy reports', async () => {
    const { t, tenants, s1, environmentId, pin, deploy } = await setup();
    await pin(environmentId, s1.id);
    await deploy();
    const rows = t.db.select().from(container).all();
    expect(rows).toHaveLength(2);
    const services = t.db.select().from(service).where(eq(service.environmentId, environmentId)).all();
    for (const row of rows) {
      const owner = services.find((item) => item.id === row.serviceId)!;
      expect(row).toMatchObject({ status: 'pending', containerId: null, serverId: s1.id, role: 'service', ordinal: 1, containerName: `${owner.id}-1` });
    }
    // One still runs; the other was destroyed (no container, last status kept).
    const [kept, gone] = rows;
    t.sqlite.query("UPDATE container SET status = 'running', container_id = 'c-' || id WHERE id = ?").run(kept!.id);
    t.sqlite.query("UPDATE container SET status = 'exited', container_id = NULL WHERE id = ?").run(gone!.id);
    await deploy();
    const again = t.db.select().from(container).all();
    expect(again.map((row) => row.id).sort()).toEqual(rows.map((row) => row.id).sort());
    expect(again.find((row) => row.id === kept!.id)).toMatchObject({ status: 'running', containerId: `c-${kept!.id}` });
    expect(again.find((row) => row.id === gone!.id)).toMatchObject({ status: 'pending', containerId: null });
    // Moved to another server: the container on the old one is not this row's any more.
    const { s2, pin: pinAgain } = { s2: enrolledServer(t, tenants.owner.organizationId), pin };
    await pinAgain(environmentId, s2.id);
    await deploy();
    for (const row of t.db.select().from(container).all()) expect(row).toMatchObject({ status: 'pending', containerId: null, serverId: s2.id });
  });

  test('the "name is replaced" warning appears only when the document sets name:', async () => {
    const { admin, s1, projectId, environmentId, pin, deploy } = await setup();
    await pin(environmentId, s1.id);
    expect((await deploy()).json.warnings).toEqual([]);
    expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml: `name: shop\n${COMPOSE}` })).status).toBe(200);
    expect((await deploy()).json.warnings).toEqual([`name "shop" is replaced by the platform project name pn-${environmentId}`]);
  });

  test('the command carries the compiled compose and each secret sealed to the target daemon only', async () => {
    const { t, s1, s2, environmentId, pin, deploy } = await setup();
    await pin(environmentId, s1.id);
    const res = await deploy();
    const [command] = commandsOf(t, res.json.id);
    const payload = command!.payload as { deploymentId: string; project: string; compose: string; secrets: { name: string; envelope: string }[] };
    expect(command).toMatchObject({ kind: 'deploy', status: 'queued', serverId: s1.id });
    expect(payload.deploymentId).toBe(res.json.id);
    expect(payload.project).toBe(`pn-${environmentId}`);
    expect(payload.compose).toContain('local/busybox:1');
    expect(payload.secrets.length).toBe(2); // one file per service
    for (const secret of payload.secrets) {
      expect(secret.envelope).toStartWith(`pndaemon.v1.${s1.id}.${s1.keyId}.`);
      expect(openAsDaemon({ serverId: s1.id, daemonKeyId: s1.keyId, privateKey: s1.privateKey }, secret.envelope)).toBe(SECRET);
      expect(() => openAsDaemon({ serverId: s2.id, daemonKeyId: s2.keyId, privateKey: s2.privateKey }, secret.envelope)).toThrow();
    }
    const everything = JSON.stringify(t.sqlite.query('SELECT * FROM daemon_command').all()) + res.text;
    expect(everything).not.toContain(SECRET);
  });

  test("the command carries the Compose policy the daemon checks it against again: the organization's host access", async () => {
    const { t, tenants, s1, environmentId, pin, deploy } = await setup();
    await pin(environmentId, s1.id);
    const policyOf = async () => (commandsOf(t, (await deploy()).json.id)[0]!.payload as { policy: unknown }).policy;
    expect(await policyOf()).toEqual({ hostAccess: false, platform: false });
    t.db.update(organization).set({ isHostAccessAllowed: true }).where(eq(organization.id, tenants.owner.organizationId)).run();
    expect(await policyOf()).toEqual({ hostAccess: true, platform: false });
  });

  test('secrets for a server without a daemon key: 409 server_key_missing, nothing written', async () => {
    const { t, tenants, environmentId, pin, deploy } = await setup();
    const keyless = enrolledServer(t, tenants.owner.organizationId);
    t.sqlite.query('UPDATE server SET public_key = NULL, daemon_key_id = NULL WHERE id = ?').run(keyless.id);
    await pin(environmentId, keyless.id);
    const res = await deploy();
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('server_key_missing');
    expect(generationOf(t, environmentId)).toBe(0);
  });
});

describe('delivery and the deploy round', () => {
  test('a connected daemon gets the command at once; ack, report and result finish it', async () => {
    const { t, s1, environmentId, pin, deploy, admin } = await setup();
    await pin(environmentId, s1.id);
    const socket = new FakeSocket();
    const connection = t.hub.open(socket, { listener: 'tcp', serverId: s1.id });
    sayHello(t, connection, helloFrame({ serverId: s1.id, machineId: s1.machineId }));
    const res = await deploy();
    const [frame] = socket.framesOf('command');
    expect(frame).toMatchObject({ kind: 'deploy', payload: { deploymentId: res.json.id } });
    const rows = t.db.select().from(container).all();
    const send = (value: object) => t.hub.receive(connection, JSON.stringify(value));
    send({ type: 'ack', id: frame!.id });
    expect((await admin('GET', `/deployments/${res.json.id}`)).json.status).toBe('running');
    send({
      type: 'report',
      commandId: frame!.id,
      project: `pn-${environmentId}`,
      containers: rows.map((row, i) => ({
        containerId: `c${i}`,
        name: row.containerName,
        service: row.composeServiceName,
        state: 'running',
        labels: { [PANEL_LABELS.serviceId]: row.serviceId, [PANEL_LABELS.role]: 'service', [PANEL_LABELS.ordinal]: '1' },
      })),
    });
    send({ type: 'result', id: frame!.id, ok: true, data: {} });
    expect((await admin('GET', `/deployments/${res.json.id}`)).json).toMatchObject({ status: 'succeeded', error: null });
    expect(t.db.select().from(container).all().map((row) => [row.status, row.containerId]).sort()).toEqual([['running', 'c0'], ['running', 'c1']]);
    expect(t.db.select().from(daemonCommand).get()!.payload).toBeNull();

    // Stop and destroy go to the server of the last deploy; the generation stays.
    const stop = await admin('POST', `/environments/${environmentId}/stop`);
    expect(stop.status).toBe(202);
    expect(stop.json).toMatchObject({ kind: 'stop', serverId: s1.id, desiredGeneration: 1, status: 'queued' });
    const stopFrame = socket.framesOf('command').find((item) => item.kind === 'stop')!;
    expect(stopFrame.payload).toEqual({ deploymentId: stop.json.id, project: `pn-${environmentId}` });
    const listed = (state: string) =>
      rows.map((row, i) => ({
        containerId: `c${i}`,
        name: row.containerName,
        service: row.composeServiceName,
        state,
        labels: { [PANEL_LABELS.serviceId]: row.serviceId, [PANEL_LABELS.role]: 'service', [PANEL_LABELS.ordinal]: '1' },
      }));
    // compose stop keeps the containers: the report lists them exited, with their ids.
    send({ type: 'report', commandId: stopFrame.id, project: `pn-${environmentId}`, containers: listed('exited') });
    send({ type: 'result', id: stopFrame.id, ok: true });
    const stopped = (await admin('GET', `/containers?serverId=${s1.id}`)).json.data;
    expect(stopped.map((row: { status: string; containerId: string; isRemoved: boolean }) => [row.status, row.containerId, row.isRemoved]).sort()).toEqual([
      ['exited', 'c0', false],
      ['exited', 'c1', false],
    ]);
    const destroy = await admin('POST', `/environments/${environmentId}/destroy`);
    expect(destroy.json).toMatchObject({ kind: 'destroy', serverId: s1.id });
    const destroyFrame = socket.framesOf('command').find((item) => item.kind === 'destroy')!;
    send({ type: 'report', commandId: destroyFrame.id, project: `pn-${environmentId}`, containers: [] });
    send({ type: 'result', id: destroyFrame.id, ok: true });
    // Destroyed: no container id, and the rows say they are removed (never a plain "exited").
    const destroyed = (await admin('GET', `/containers?serverId=${s1.id}`)).json.data;
    expect(destroyed.map((row: { containerId: string | null; isRemoved: boolean }) => [row.containerId, row.isRemoved])).toEqual([
      [null, true],
      [null, true],
    ]);
    expect(generationOf(t, environmentId)).toBe(1);

    const list = await admin('GET', `/deployments?environmentId=${environmentId}`);
    expect(list.json.data.map((row: { kind: string }) => row.kind)).toEqual(['deploy', 'stop', 'destroy']);
  });

  test('stop or destroy before any deploy: 409 not_deployed', async () => {
    const { admin, environmentId } = await setup();
    for (const action of ['stop', 'destroy']) {
      const res = await admin('POST', `/environments/${environmentId}/${action}`);
      expect(res.status).toBe(409);
      expect(res.json.error.code).toBe('not_deployed');
    }
  });
});
