import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { managed, variable } from '../../../db/schema/index.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { countRows } from '../../../../test/db.ts';
import { seedDatabasePrincipal, seedManaged, seedTenants } from '../../../../test/seed.ts';

const URL = '/api/client/v1/managed';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const post = (body: Record<string, unknown>, headers = tenants.owner.headers) =>
    t.request('POST', URL, { organizationId: tenants.owner.organizationId, name: 'main-db', engine: 'postgres', ...body }, headers);
  return { t, ...tenants, post };
}

describe('POST /managed', () => {
  test('registers a cluster; optional fields default to null', async () => {
    const { post } = setup();
    const bare = await post({});
    expect(bare.status).toBe(201);
    expect(bare.json).toMatchObject({ name: 'main-db', engine: 'postgres', version: null, host: null, port: null, options: null });
    const full = await post({ engine: 'mysql', version: '8.4', host: 'mysql.internal', port: 3306, options: { databases: ['shop', 'logs'] } });
    expect(full.json).toMatchObject({ engine: 'mysql', version: '8.4', host: 'mysql.internal', port: 3306, options: { databases: ['shop', 'logs'] } });
  });

  test('another organization 404; nothing is written', async () => {
    const { t, stranger, post } = setup();
    expect((await post({ organizationId: stranger.organizationId })).status).toBe(404);
    expect(countRows(t.sqlite, 'managed')).toBe(0);
  });

  test.each([
    [{ engine: 'oracle' }, 'engine'],
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(256) }, 'name'],
    [{ port: 0 }, 'port'],
    [{ port: 65536 }, 'port'],
    [{ port: 80.5 }, 'port'],
    [{ host: 'bad host' }, 'host'],
    [{ version: '' }, 'version'],
    [{ options: [] }, 'options'],
    [{ options: { databases: [''] } }, 'options.databases.0'],
    [{ options: { databases: ['ok', 'd'.repeat(64)] } }, 'options.databases.1'],
    [{ options: { databases: ['1st'] } }, 'options.databases.0'],
    [{ options: { databases: ['app', 'app'] } }, 'options.databases.1'],
    [{ options: { replicas: 2 } }, 'options.replicas'],
    [{ colour: 'red' }, 'colour'],
  ])('%j is 422 at %s', async (body, path) => {
    const { t, post } = setup();
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.json.error.path).toBe(path);
    expect(countRows(t.sqlite, 'managed')).toBe(0);
  });

  test('boundaries that pass: port 1 and 65535, 255-character name, 1- and 63-character database names, IPv6 host', async () => {
    const { post } = setup();
    expect((await post({ port: 1, name: 'n'.repeat(255), host: 'fd00::1' })).status).toBe(201);
    expect((await post({ port: 65535, options: { databases: ['a', 'd'.repeat(63)] } })).status).toBe(201);
  });
});

describe('GET /managed', () => {
  test("lists an organization's clusters, paged; members read; organizationId is required", async () => {
    const { t, owner, member, stranger } = setup();
    const ids = [1, 2, 3].map(() => seedManaged(t, owner.organizationId).id);
    seedManaged(t, stranger.organizationId);
    const first = await t.request('GET', `${URL}?organizationId=${owner.organizationId}&limit=2`, undefined, member.headers);
    expect(first.status).toBe(200);
    expect(first.json.data.map((row: { id: string }) => row.id)).toEqual(ids.slice(0, 2));
    const rest = await t.request('GET', `${URL}?organizationId=${owner.organizationId}&cursor=${first.json.nextCursor}`, undefined, member.headers);
    expect(rest.json.data.map((row: { id: string }) => row.id)).toEqual(ids.slice(2));
    expect((await t.request('GET', `${URL}?organizationId=${stranger.organizationId}`, undefined, owner.headers)).status).toBe(404);
    expect((await t.request('GET', URL, undefined, owner.headers)).json.error.path).toBe('organizationId');
  });
});

describe('GET, PATCH, DELETE /managed/:id', () => {
  test('GET: members read; foreign 404; bad id 422', async () => {
    const { t, owner, member, stranger } = setup();
    const cluster = seedManaged(t, owner.organizationId);
    expect((await t.request('GET', `${URL}/${cluster.id}`, undefined, member.headers)).json).toMatchObject({ id: cluster.id, host: 'db.internal', port: 5432 });
    expect((await t.request('GET', `${URL}/${cluster.id}`, undefined, stranger.headers)).status).toBe(404);
    expect((await t.request('GET', `${URL}/x`, undefined, owner.headers)).status).toBe(422);
  });

  test('PATCH changes fields; the engine is fixed and host/port cannot be cleared', async () => {
    const { t, owner } = setup();
    const cluster = seedManaged(t, owner.organizationId);
    const res = await t.request('PATCH', `${URL}/${cluster.id}`, { name: 'renamed', version: '17', port: 6432, options: { databases: ['app', 'analytics', 'new'] } }, owner.headers);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'renamed', version: '17', port: 6432, engine: 'postgres', options: { databases: ['app', 'analytics', 'new'] } });
    expect((await t.request('PATCH', `${URL}/${cluster.id}`, { engine: 'mysql' }, owner.headers)).json.error.path).toBe('engine');
    expect((await t.request('PATCH', `${URL}/${cluster.id}`, { host: null }, owner.headers)).json.error.path).toBe('host');
    expect((await t.request('PATCH', `${URL}/${cluster.id}`, {}, owner.headers)).json).toMatchObject({ name: 'renamed', port: 6432 });
  });

  test('PATCH: foreign 404 changes nothing', async () => {
    const { t, owner, stranger } = setup();
    const cluster = seedManaged(t, owner.organizationId);
    expect((await t.request('PATCH', `${URL}/${cluster.id}`, { name: 'x' }, stranger.headers)).status).toBe(404);
    expect(t.db.select().from(managed).where(eq(managed.id, cluster.id)).get()).toEqual(cluster);
  });

  test('a database still bound cannot be dropped from options.databases (409 database_in_use)', async () => {
    const { t, owner, tree } = setup();
    const cluster = seedManaged(t, owner.organizationId, { databases: ['app', 'spare'] });
    const user = seedDatabasePrincipal(t, cluster);
    expect((await t.request('POST', '/api/client/v1/bindings', { principalId: user.id, serviceId: tree.serviceId, databaseName: 'app' }, owner.headers)).status).toBe(201);
    const drop = await t.request('PATCH', `${URL}/${cluster.id}`, { options: { databases: ['spare'] } }, owner.headers);
    expect(drop.status).toBe(409);
    expect(drop.json.error).toMatchObject({ code: 'database_in_use', path: 'options.databases' });
    expect((await t.request('PATCH', `${URL}/${cluster.id}`, { options: null }, owner.headers)).status).toBe(409);
    expect((await t.request('PATCH', `${URL}/${cluster.id}`, { options: { databases: ['app'] } }, owner.headers)).status).toBe(200);
  });

  test("a new host or port rewrites the bindings' variables", async () => {
    const { t, owner, tree } = setup();
    const cluster = seedManaged(t, owner.organizationId);
    const user = seedDatabasePrincipal(t, cluster);
    await t.request('POST', '/api/client/v1/bindings', { principalId: user.id, serviceId: tree.serviceId, databaseName: 'app' }, owner.headers);
    await t.request('PATCH', `${URL}/${cluster.id}`, { host: 'pg.example.net', port: 6543 }, owner.headers);
    const values = Object.fromEntries(t.db.select().from(variable).where(eq(variable.serviceId, tree.serviceId)).all().map((row) => [row.key, row.value]));
    expect(values).toMatchObject({ DATABASE_HOST: 'pg.example.net', DATABASE_PORT: '6543', PGHOST: 'pg.example.net', PGPORT: '6543' });
  });

  test('DELETE (204) takes its database users, their bindings and the bindings’ variables; foreign 404 keeps it', async () => {
    const { t, owner, stranger, tree } = setup();
    const cluster = seedManaged(t, owner.organizationId);
    const user = seedDatabasePrincipal(t, cluster);
    await t.request('POST', '/api/client/v1/bindings', { principalId: user.id, serviceId: tree.serviceId, databaseName: 'app' }, owner.headers);
    expect((await t.request('DELETE', `${URL}/${cluster.id}`, undefined, stranger.headers)).status).toBe(404);
    expect(countRows(t.sqlite, 'binding')).toBe(1);
    expect((await t.request('DELETE', `${URL}/${cluster.id}`, undefined, owner.headers)).status).toBe(204);
    for (const table of ['managed', 'principal', 'binding', 'variable']) expect(countRows(t.sqlite, table)).toBe(0);
  });
});
