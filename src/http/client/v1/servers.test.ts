import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { container, deployment, environment, marker, project, replica, server, tag, variable } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { FakeSocket, helloFrame, sayHello } from '../../../../test/daemon.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedManaged, seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { organizationId } = tenants.owner;
  const addServer = (name: string) => t.db.insert(server).values({ organizationId, name }).returning().get().id;
  return { t, ...tenants, organizationId, addServer, owner: clientAs(t, tenants.owner), admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member) };
}

describe('servers', () => {
  test('list, read, rename and delete', async () => {
    const { t, admin, member, organizationId, tree, addServer } = setup();
    const ids = [tree.serverId, addServer('node-2'), addServer('node-3')];
    expect(await collectPages(member, `/servers?organizationId=${organizationId}`, 2)).toEqual(ids);
    const read = await member('GET', `/servers/${ids[1]}`);
    expect(read.json).toMatchObject({ id: ids[1], organizationId, name: 'node-2', status: 'pending', isLocal: false, hostname: null, lastSeenAt: null, flag: null, flaggedAt: null, daemonKeyId: null, labels: {} });
    expect(read.json).not.toHaveProperty('credentialHash');

    backdate(t, 'server', ids[1]!);
    const renamed = await admin('PATCH', `/servers/${ids[1]}`, { name: 'edge eu-1' });
    expect(renamed.json.name).toBe('edge eu-1');
    expect(Date.parse(renamed.json.updatedAt)).toBeGreaterThan(0);
    expect((await admin('DELETE', `/servers/${ids[1]}`)).status).toBe(204);
    expect((await admin('GET', `/servers/${ids[1]}`)).status).toBe(404);
  });

  test('names are 1 to 255 characters; daemon-owned fields are not client-written', async () => {
    const { owner, tree } = setup();
    for (const name of ['x', repeat(255)]) expect((await owner('PATCH', `/servers/${tree.serverId}`, { name })).json.name).toBe(name);
    for (const body of [{ name: '' }, { name: repeat(256) }, { status: 'connected' }, { organizationId: tree.organizationId }]) {
      const res = await owner('PATCH', `/servers/${tree.serverId}`, body);
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(Object.keys(body)[0]);
    }
  });

  test('labels: admins replace the whole set, stored in key order; members read them', async () => {
    const { t, admin, member, tree } = setup();
    const set = await admin('PATCH', `/servers/${tree.serverId}`, { labels: { zone: 'eu-1', disk: 'ssd', 'rack.row_2-b': 'A 7' } });
    expect(set.status).toBe(200);
    expect(set.json.labels).toEqual({ disk: 'ssd', 'rack.row_2-b': 'A 7', zone: 'eu-1' });
    expect(Object.keys(set.json.labels)).toEqual(['disk', 'rack.row_2-b', 'zone']);
    expect((await member('GET', `/servers/${tree.serverId}`)).json.labels).toEqual(set.json.labels);
    // A rename keeps the labels; an empty set clears them.
    expect((await admin('PATCH', `/servers/${tree.serverId}`, { name: 'renamed' })).json.labels).toEqual(set.json.labels);
    expect((await admin('PATCH', `/servers/${tree.serverId}`, { labels: {} })).json.labels).toEqual({});
    expect(t.db.select({ labels: server.labels }).from(server).where(eq(server.id, tree.serverId)).get()).toEqual({ labels: {} });
    expect((await member('PATCH', `/servers/${tree.serverId}`, { labels: { disk: 'ssd' } })).status).toBe(403);
  });

  test('label keys, values and count are checked; a refused set changes nothing', async () => {
    const { t, admin, tree } = setup();
    await admin('PATCH', `/servers/${tree.serverId}`, { labels: { disk: 'ssd' } });
    const before = rawRow(t, 'server', tree.serverId);
    const tooMany = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']));
    for (const labels of [{ '-disk': 'ssd' }, { 'disk ssd': 'x' }, { [repeat(64)]: 'x' }, { disk: '' }, { disk: ' ssd' }, { disk: 'a\nb' }, { disk: repeat(256) }, { disk: 1 }, ['disk'], tooMany]) {
      const res = await admin('PATCH', `/servers/${tree.serverId}`, { labels });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toStartWith('labels');
    }
    expect(rawRow(t, 'server', tree.serverId)).toEqual(before);
  });

  test('delete is refused while an environment pin, a project default, a container or a replica holds the server', async () => {
    const { t, owner, tree, addServer } = setup();
    const holders: [string, (serverId: string) => void][] = [
      ['environments pinned', (serverId) => t.db.update(environment).set({ serverId }).where(eq(environment.id, tree.environmentId)).run()],
      ['default server', (serverId) => t.db.update(project).set({ options: { defaultServerId: serverId } }).where(eq(project.id, tree.projectId)).run()],
      ['containers', (serverId) => t.db.insert(container).values({ serviceId: tree.serviceId, serverId, containerName: 'c', composeServiceName: 'c' }).run()],
      ['replicas', (serverId) => t.db.insert(replica).values({ managedId: seedManaged(t, tree.organizationId).id, serverId }).run()],
    ];
    for (const [kind, hold] of holders) {
      const serverId = addServer(kind);
      hold(serverId);
      const res = await owner('DELETE', `/servers/${serverId}`);
      expect(res.status).toBe(409);
      expect(res.json.error.code).toBe('has_dependents');
      expect(res.json.error.message).toContain(kind);
      expect(rawRow(t, 'server', serverId)).not.toBeNull();
    }
  });

  test('a server whose containers were all removed (destroyed) can be deleted: their rows go with it; a live one still blocks', async () => {
    const { t, owner, tree, addServer } = setup();
    const serverId = addServer('retired');
    const placed = (containerName: string, ordinal: number, state: { status: 'exited' | 'running' | 'pending'; containerId: string | null }) =>
      t.db.insert(container).values({ serviceId: tree.serviceId, serverId, containerName, composeServiceName: 'web', ordinal, ...state }).returning().get().id;
    const destroyed = placed('destroyed', 1, { status: 'exited', containerId: null });
    const live = placed('stopped', 2, { status: 'exited', containerId: 'c0ffee' });

    // A stopped container still exists on the server: the refusal says what to do, and nothing changes.
    const refused = await owner('DELETE', `/servers/${serverId}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('has_dependents');
    expect(refused.json.error.message).toBe('server still has containers (stopped ones too: destroy the deployments that placed them); remove them first');
    expect(rawRow(t, 'container', destroyed)).not.toBeNull();

    // Waiting for a deploy's first report is not removed either.
    t.db.update(container).set({ status: 'pending', containerId: null }).where(eq(container.id, live)).run();
    expect((await owner('DELETE', `/servers/${serverId}`)).status).toBe(409);

    t.db.update(container).set({ status: 'running', containerId: null }).where(eq(container.id, live)).run(); // destroyed while running
    expect((await owner('DELETE', `/servers/${serverId}`)).status).toBe(204);
    expect(rawRow(t, 'server', serverId)).toBeNull();
    expect([rawRow(t, 'container', destroyed), rawRow(t, 'container', live)]).toEqual([null, null]);
    // The project's other rows are untouched.
    expect(rawRow(t, 'service', tree.serviceId)).not.toBeNull();
  });

  test('deleting a server cascades its variables and markers and clears deployment references', async () => {
    const { t, owner, tree, organizationId, addServer } = setup();
    const serverId = addServer('doomed');
    t.db.insert(variable).values({ serverId, key: 'A' }).run();
    const label = t.db.insert(tag).values({ organizationId, name: 'x' }).returning().get();
    t.db.insert(marker).values({ tagId: label.id, serverId }).run();
    const run = t.db.insert(deployment).values({ environmentId: tree.environmentId, serverId, kind: 'deploy', desiredGeneration: 1 }).returning().get();
    expect((await owner('DELETE', `/servers/${serverId}`)).status).toBe(204);
    expect(t.db.select().from(variable).where(eq(variable.serverId, serverId)).all()).toHaveLength(0);
    expect(t.db.select().from(marker).all()).toHaveLength(0);
    expect(rawRow(t, 'deployment', run.id)!.server_id).toBeNull();
  });

  test("another organization's server answers 404 and stays unchanged", async () => {
    const { t, owner, foreign, stranger } = setup();
    const before = rawRow(t, 'server', foreign.serverId);
    expect((await owner('GET', `/servers/${foreign.serverId}`)).status).toBe(404);
    expect((await owner('PATCH', `/servers/${foreign.serverId}`, { name: 'mine' })).status).toBe(404);
    expect((await owner('DELETE', `/servers/${foreign.serverId}`)).status).toBe(404);
    expect((await owner('GET', `/servers?organizationId=${stranger.organizationId}`)).status).toBe(404);
    expect(rawRow(t, 'server', foreign.serverId)).toEqual(before);
  });
});

describe('this machine', () => {
  test("the installing organization sees whether Panel's own host is connected, and if not why and the command that fixes it", async () => {
    const { t, member, organizationId } = setup();
    const thisMachine = async () => (await member('GET', `/servers/this-machine?organizationId=${organizationId}`)).json;
    // install.sh's setup: the panel-daemon service runs the daemon, and it is not connected.
    expect(await thisMachine()).toEqual({
      applies: true,
      serverId: null,
      name: null,
      state: 'external',
      problem: "This machine's daemon runs as the panel-daemon service, and it is not connected.",
      fix: 'sudo systemctl enable --now panel-daemon',
    });
    // npm start / panel serve supervise it: no engine answers.
    let supervised = { state: 'no_engine' as const, problem: 'The Docker engine is not running on this machine (x).', fix: 'sudo systemctl start docker' };
    t.deps.localDaemon = { status: () => supervised };
    expect(await thisMachine()).toMatchObject({ state: 'no_engine', problem: supervised.problem, fix: 'sudo systemctl start docker' });
    supervised = { state: 'running', problem: null, fix: null } as never;
    expect(await thisMachine()).toMatchObject({ state: 'connecting', fix: null });
    // The daemon says hello over the unix socket: connected, by the local record's name.
    const socket = new FakeSocket();
    sayHello(t, t.hub.open(socket, { listener: 'unix' }), helloFrame({ hostname: 'panel-host', daemonKey: { keyId: 'dk_local', publicKey: 'A'.repeat(43) } }));
    const local = t.db.select().from(server).where(eq(server.isLocal, true)).get()!;
    expect(await thisMachine()).toEqual({ applies: true, serverId: local.id, name: 'panel-host', state: 'connected', problem: null, fix: null });
  });

  test('another organization is told it does not apply; a stranger gets 404', async () => {
    const { t, stranger, organizationId } = setup();
    const theirs = clientAs(t, stranger);
    expect((await theirs('GET', `/servers/this-machine?organizationId=${stranger.organizationId}`)).json).toMatchObject({ applies: false, serverId: null, problem: null });
    expect((await theirs('GET', `/servers/this-machine?organizationId=${organizationId}`)).status).toBe(404);
  });
});
