import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { organization, principal } from '../../../db/schema/index.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { countRows } from '../../../../test/db.ts';
import { seedDatabasePrincipal, seedManaged, seedSystemPrincipal, seedTenants } from '../../../../test/seed.ts';

const URL = '/api/client/v1/principals';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const post = (body: Record<string, unknown>, headers = tenants.owner.headers) =>
    t.request('POST', URL, { organizationId: tenants.owner.organizationId, kind: 'system', username: 'www', ...body }, headers);
  const randomizeUsernames = () =>
    t.db.update(organization).set({ isRandomizeUsernames: true }).where(eq(organization.id, tenants.owner.organizationId)).run();
  return { t, ...tenants, post, randomizeUsernames };
}

describe('POST /principals: system accounts', () => {
  test('defaults: provider server, applied username = username, home under /srv/users, nologin shell', async () => {
    const { post } = setup();
    const res = await post({});
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      kind: 'system',
      provider: 'server',
      username: 'www',
      appliedUsername: 'www',
      password: null,
      hasPassword: false,
      projectId: null,
      managedId: null,
      metadata: { home: '/srv/users/www' },
      options: { shell: '/usr/sbin/nologin' },
    });
  });

  test('home, composeAlias, shell and uid/gid overrides (mirrored into metadata) are kept', async () => {
    const { tree, post } = setup();
    const res = await post({ projectId: tree.projectId, metadata: { home: '/srv/users/shop/www', composeAlias: 'web' }, options: { shell: '/bin/bash', uid: 1000, gid: 60000 } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ projectId: tree.projectId, metadata: { home: '/srv/users/shop/www', composeAlias: 'web', uid: 1000, gid: 60000 }, options: { shell: '/bin/bash', uid: 1000, gid: 60000 } });
  });

  test.each([
    ['', 422],
    ['a', 201],
    ['_svc-1', 201],
    ['u'.repeat(32), 201],
    ['u'.repeat(33), 422],
    ['1www', 422],
    ['-www', 422],
    ['w.w', 422],
  ])('system username %p answers %p', async (username, status) => {
    const { post } = setup();
    const res = await post({ username });
    expect(res.status).toBe(status);
    if (status === 422) expect(res.json.error.path).toBe('username');
  });

  test.each([
    [{ provider: 'postgres' }, 'provider'],
    [{ kind: 'robot' }, 'kind'],
    [{ metadata: { home: '/home/www' } }, 'metadata.home'],
    [{ metadata: { home: '/srv/users/' } }, 'metadata.home'],
    [{ metadata: { home: '/srv/users/../etc' } }, 'metadata.home'],
    [{ metadata: { home: '/srv/users/a/./b' } }, 'metadata.home'],
    [{ metadata: { uid: 1000 } }, 'metadata.uid'],
    [{ metadata: { databases: ['app'] } }, 'metadata.databases'],
    [{ metadata: [] }, 'metadata'],
    [{ options: { shell: '/bin/csh' } }, 'options.shell'],
    [{ options: { uid: 999 } }, 'options.uid'],
    [{ options: { gid: 60001 } }, 'options.gid'],
    [{ options: { uid: 1000.5 } }, 'options.uid'],
    [{ password: 42 }, 'password'],
    [{ password: '' }, 'password'],
    [{ appliedUsername: 'x' }, 'appliedUsername'],
  ])('%j is 422 at %s', async (body, path) => {
    const { t, post } = setup();
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.json.error.path).toBe(path);
    expect(countRows(t.sqlite, 'principal')).toBe(0);
  });

  test('a system principal cannot belong to a managed cluster (422 managedId)', async () => {
    const { t, owner, post } = setup();
    const res = await post({ managedId: seedManaged(t, owner.organizationId).id });
    expect(res.json.error.path).toBe('managedId');
  });
});

describe('POST /principals: database users', () => {
  test('a user of a cluster: provider is its engine, metadata carries engine and databases, no options', async () => {
    const { t, owner, post } = setup();
    const cluster = seedManaged(t, owner.organizationId, { engine: 'mysql' });
    const res = await post({ kind: 'database', provider: 'mysql', username: 'shop', managedId: cluster.id, metadata: { databases: ['app'] } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: 'database', provider: 'mysql', managedId: cluster.id, metadata: { engine: 'mysql', databases: ['app'] }, options: null });
  });

  test.each<[Record<string, unknown>, string]>([
    [{ kind: 'database' }, 'provider'],
    [{ kind: 'database', provider: 'server' }, 'provider'],
    [{ kind: 'database', provider: 'mysql', managed: true }, 'provider'],
    [{ kind: 'database', provider: 'postgres', options: { shell: '/bin/sh' } }, 'options'],
    [{ kind: 'database', provider: 'postgres', metadata: { home: '/srv/users/x' } }, 'metadata.home'],
    [{ kind: 'database', provider: 'postgres', managed: true, metadata: { databases: ['app', 'nope'] } }, 'metadata.databases.1'],
    [{ kind: 'database', provider: 'postgres', username: 'u'.repeat(256) }, 'username'],
  ])('%j is 422 at %s', async ({ managed, ...body }, path) => {
    const { t, owner, post } = setup();
    const managedId = managed ? seedManaged(t, owner.organizationId).id : undefined;
    const res = await post({ ...body, managedId });
    expect(res.status).toBe(422);
    expect(res.json.error.path).toBe(path);
  });

  test('database usernames may use the full 255 characters', async () => {
    const { post } = setup();
    expect((await post({ kind: 'database', provider: 'redis', username: 'u'.repeat(255) })).status).toBe(201);
  });
});

describe('randomized applied usernames', () => {
  test('username_ plus 11 of [a-z0-9], fixed at create', async () => {
    const { post, randomizeUsernames } = setup();
    randomizeUsernames();
    const res = await post({ username: 'www' });
    expect(res.json.appliedUsername).toMatch(/^www_[a-z0-9]{11}$/);
    expect(res.json.metadata.home).toBe(`/srv/users/${res.json.appliedUsername}`);
    const other = await post({ username: 'www' });
    expect(other.json.appliedUsername).not.toBe(res.json.appliedUsername);
  });

  test('the username is shortened so the applied name fits the cap (32 system, 255 database)', async () => {
    const { post, randomizeUsernames } = setup();
    randomizeUsernames();
    const system = await post({ username: 's'.repeat(32) });
    expect(system.json.appliedUsername).toMatch(/^s{20}_[a-z0-9]{11}$/);
    const database = await post({ kind: 'database', provider: 'postgres', username: 'd'.repeat(255) });
    expect(database.json.appliedUsername).toMatch(/^d{243}_[a-z0-9]{11}$/);
    expect(database.json.username).toBe('d'.repeat(255));
  });
});

describe('POST /principals: access and scopes', () => {
  test('another organization, or a foreign project or cluster, 404; nothing is written', async () => {
    const { t, stranger, foreign, post } = setup();
    expect((await post({ organizationId: stranger.organizationId })).status).toBe(404);
    expect((await post({ projectId: foreign.projectId })).status).toBe(404);
    const foreignCluster = seedManaged(t, stranger.organizationId);
    expect((await post({ kind: 'database', provider: 'postgres', managedId: foreignCluster.id })).status).toBe(404);
    expect(countRows(t.sqlite, 'principal')).toBe(0);
  });

  test("the provider must be the cluster's engine (422 provider)", async () => {
    const { t, owner, post } = setup();
    const cluster = seedManaged(t, owner.organizationId, { engine: 'redis' });
    expect((await post({ kind: 'database', provider: 'postgres', managedId: cluster.id })).json.error.path).toBe('provider');
  });
});

describe('GET /principals', () => {
  test('lists by exactly one of organizationId, projectId, managedId', async () => {
    const { t, owner, member, stranger, tree, post } = setup();
    const cluster = seedManaged(t, owner.organizationId);
    const inProject = (await post({ projectId: tree.projectId })).json.id;
    const dbUser = seedDatabasePrincipal(t, cluster).id;
    const get = (query: string, headers = member.headers) => t.request('GET', `${URL}?${query}`, undefined, headers);
    expect((await get(`organizationId=${owner.organizationId}`)).json.data.map((p: { id: string }) => p.id)).toEqual([inProject, dbUser]);
    expect((await get(`projectId=${tree.projectId}`)).json.data.map((p: { id: string }) => p.id)).toEqual([inProject]);
    expect((await get(`managedId=${cluster.id}&limit=1`)).json).toMatchObject({ data: [{ id: dbUser }], nextCursor: null });
    expect((await get(`organizationId=${stranger.organizationId}`)).status).toBe(404);
    expect((await get('')).json.error.path).toBe('organizationId');
    expect((await get(`organizationId=${owner.organizationId}&projectId=${tree.projectId}`)).json.error.path).toBe('projectId');
  });
});

describe('GET, PATCH, DELETE /principals/:id', () => {
  test('GET: members read; foreign 404', async () => {
    const { t, owner, member, stranger } = setup();
    const row = seedSystemPrincipal(t, owner.organizationId);
    expect((await t.request('GET', `${URL}/${row.id}`, undefined, member.headers)).json).toMatchObject({ id: row.id, password: null });
    expect((await t.request('GET', `${URL}/${row.id}`, undefined, stranger.headers)).status).toBe(404);
  });

  test('PATCH replaces metadata and options; the usernames are fixed', async () => {
    const { t, owner, post } = setup();
    const row = (await post({ metadata: { composeAlias: 'web' }, options: { uid: 2000 } })).json;
    const changed = await t.request('PATCH', `${URL}/${row.id}`, { options: { shell: '/bin/sh' } }, owner.headers);
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ metadata: { home: '/srv/users/www', composeAlias: 'web' }, options: { shell: '/bin/sh' } });
    expect(changed.json.metadata.uid).toBeUndefined();
    const reset = await t.request('PATCH', `${URL}/${row.id}`, { metadata: null, options: null }, owner.headers);
    expect(reset.json).toMatchObject({ metadata: { home: '/srv/users/www' }, options: { shell: '/usr/sbin/nologin' } });
    expect(reset.json.metadata.composeAlias).toBeUndefined();
    for (const field of ['username', 'appliedUsername', 'kind', 'organizationId']) {
      expect((await t.request('PATCH', `${URL}/${row.id}`, { [field]: 'x' }, owner.headers)).json.error.path).toBe(field);
    }
  });

  test("PATCH keeps metadata keys the platform wrote (a cluster root user's managedRoot); an empty PATCH changes nothing", async () => {
    const { t, owner } = setup();
    const root = seedDatabasePrincipal(t, seedManaged(t, owner.organizationId));
    t.db.update(principal).set({ metadata: { managedRoot: true, engine: 'postgres' } }).where(eq(principal.id, root.id)).run();
    const res = await t.request('PATCH', `${URL}/${root.id}`, { metadata: { databases: ['app'] } }, owner.headers);
    expect(res.json.metadata).toEqual({ managedRoot: true, engine: 'postgres', databases: ['app'] });
    expect((await t.request('PATCH', `${URL}/${root.id}`, {}, owner.headers)).json.metadata).toEqual({ managedRoot: true, engine: 'postgres', databases: ['app'] });
  });

  test('PATCH: foreign 404 and 422 change nothing', async () => {
    const { t, owner, stranger } = setup();
    const row = seedSystemPrincipal(t, owner.organizationId);
    expect((await t.request('PATCH', `${URL}/${row.id}`, { options: { shell: '/bin/sh' } }, stranger.headers)).status).toBe(404);
    expect((await t.request('PATCH', `${URL}/${row.id}`, { metadata: { home: '/root' } }, owner.headers)).json.error.path).toBe('metadata.home');
    expect(t.db.select().from(principal).where(eq(principal.id, row.id)).get()).toEqual(row);
  });

  test('DELETE (204) takes its tenancies and bindings; foreign 404 keeps it', async () => {
    const { t, owner, stranger, tree } = setup();
    const account = seedSystemPrincipal(t, owner.organizationId);
    await t.request('POST', '/api/client/v1/tenancies', { principalId: account.id, serviceId: tree.serviceId }, owner.headers);
    const user = seedDatabasePrincipal(t, seedManaged(t, owner.organizationId));
    await t.request('POST', '/api/client/v1/bindings', { principalId: user.id, serviceId: tree.serviceId, databaseName: 'app' }, owner.headers);
    expect((await t.request('DELETE', `${URL}/${account.id}`, undefined, stranger.headers)).status).toBe(404);
    expect(countRows(t.sqlite, 'tenancy')).toBe(1);
    expect((await t.request('DELETE', `${URL}/${account.id}`, undefined, owner.headers)).status).toBe(204);
    expect((await t.request('DELETE', `${URL}/${user.id}`, undefined, owner.headers)).status).toBe(204);
    for (const table of ['principal', 'tenancy', 'binding', 'variable']) expect(countRows(t.sqlite, table)).toBe(0);
  });
});
