import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { openSecret } from '../../../crypto/index.ts';
import { binding, type ManagedEngine, variable } from '../../../db/schema/index.ts';
import { variableValueOwner } from '../../../domain/variables/secrets.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { countRows } from '../../../../test/db.ts';
import { type ManagedSeed, seedDatabasePrincipal, seedManaged, seedService, seedSystemPrincipal, seedTenants } from '../../../../test/seed.ts';

const URL = '/api/client/v1/bindings';

function setup(cluster: ManagedSeed = {}, password: string | null = 'p@ss:w/rd') {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const managed = seedManaged(t, tenants.owner.organizationId, cluster);
  const user = seedDatabasePrincipal(t, managed, { username: 'shop', password });
  const post = (body: Record<string, unknown> = {}, headers = tenants.owner.headers) =>
    t.request('POST', URL, { principalId: user.id, serviceId: tenants.tree.serviceId, databaseName: 'app', ...body }, headers);
  return { t, ...tenants, managed, user, post };
}

/** A service's variables as key -> plaintext (secrets opened), with the secret keys listed apart. */
function serviceVariables(t: TestApp, serviceId: string) {
  const rows = t.db.select().from(variable).where(eq(variable.serviceId, serviceId)).all();
  const values = Object.fromEntries(rows.map((row) => [row.key, row.isSecret ? openSecret(t.deps.keyring, row.value, variableValueOwner(row.id)) : row.value]));
  return { values, secrets: rows.filter((row) => row.isSecret).map((row) => row.key).sort(), rows };
}

describe('POST /bindings', () => {
  test('materializes prefixed and engine default keys at service scope, owned by the binding', async () => {
    const { t, tree, user, post } = setup();
    const res = await post();
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ principalId: user.id, serviceId: tree.serviceId, databaseName: 'app', keyPrefix: 'DATABASE', emitEngineDefaults: true });
    const { values, secrets, rows } = serviceVariables(t, tree.serviceId);
    expect(values).toEqual({
      DATABASE_HOST: 'db.internal',
      DATABASE_PORT: '5432',
      DATABASE_NAME: 'app',
      DATABASE_USER: 'shop',
      DATABASE_PASSWORD: 'p@ss:w/rd',
      DATABASE_URL: 'postgres://shop:p%40ss%3Aw%2Frd@db.internal:5432/app',
      PGHOST: 'db.internal',
      PGPORT: '5432',
      PGDATABASE: 'app',
      PGUSER: 'shop',
      PGPASSWORD: 'p@ss:w/rd',
    });
    expect(secrets).toEqual(['DATABASE_PASSWORD', 'DATABASE_URL', 'PGPASSWORD']);
    for (const row of rows) expect(row).toMatchObject({ bindingId: res.json.id, isLiteral: true, isForBuild: false, isForRuntime: true });
  });

  test.each<[ManagedEngine, string, Record<string, string>]>([
    ['mysql', 'mysql://shop:pw@db.internal:5432/app', { MYSQL_HOST: 'db.internal', MYSQL_PORT: '5432', MYSQL_DATABASE: 'app', MYSQL_USER: 'shop', MYSQL_PASSWORD: 'pw' }],
    ['redis', 'redis://shop:pw@db.internal:5432', { REDIS_HOST: 'db.internal', REDIS_PORT: '5432', REDIS_USERNAME: 'shop', REDIS_PASSWORD: 'pw', REDIS_URL: 'redis://shop:pw@db.internal:5432' }],
    ['clickhouse', 'clickhouse://shop:pw@db.internal:5432/app', { CLICKHOUSE_HOST: 'db.internal', CLICKHOUSE_PORT: '5432', CLICKHOUSE_DB: 'app', CLICKHOUSE_USER: 'shop', CLICKHOUSE_PASSWORD: 'pw' }],
  ])('%s: URL %s and its conventional keys', async (engine, url, defaults) => {
    const { t, tree, post } = setup({ engine }, 'pw');
    expect((await post()).status).toBe(201);
    const { values } = serviceVariables(t, tree.serviceId);
    expect(values).toMatchObject({ DATABASE_URL: url, ...defaults });
    expect(Object.keys(values)).toHaveLength(6 + Object.keys(defaults).length);
  });

  test('a prefix equal to the engine\'s emits each coinciding key once; no password, no password in the URL; IPv6 in brackets', async () => {
    const { t, tree, post } = setup({ engine: 'mysql', host: 'fd00::5' }, null);
    expect((await post({ keyPrefix: 'MYSQL' })).status).toBe(201);
    const { values } = serviceVariables(t, tree.serviceId);
    expect(Object.keys(values).sort()).toEqual(['MYSQL_DATABASE', 'MYSQL_HOST', 'MYSQL_NAME', 'MYSQL_PASSWORD', 'MYSQL_PORT', 'MYSQL_URL', 'MYSQL_USER']);
    expect(values).toMatchObject({ MYSQL_PASSWORD: '', MYSQL_URL: 'mysql://shop@[fd00::5]:5432/app' });
  });

  test('emitEngineDefaults false emits the prefixed keys only', async () => {
    const { t, tree, post } = setup();
    expect((await post({ keyPrefix: 'ANALYTICS', emitEngineDefaults: false, databaseName: 'analytics' })).json.emitEngineDefaults).toBe(false);
    expect(Object.keys(serviceVariables(t, tree.serviceId).values).sort()).toEqual(['ANALYTICS_HOST', 'ANALYTICS_NAME', 'ANALYTICS_PASSWORD', 'ANALYTICS_PORT', 'ANALYTICS_URL', 'ANALYTICS_USER']);
  });

  test('keyPrefix is unique per service (409 key_prefix_in_use); another service may reuse it', async () => {
    const { t, tree, post } = setup();
    await post();
    const res = await post({ emitEngineDefaults: false });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'key_prefix_in_use', path: 'keyPrefix' });
    expect((await post({ serviceId: seedService(t, tree.environmentId) })).status).toBe(201);
  });

  test('at most one binding per service emits engine defaults (409 engine_defaults_in_use)', async () => {
    const { post } = setup();
    await post();
    const res = await post({ keyPrefix: 'SECOND' });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'engine_defaults_in_use', path: 'emitEngineDefaults' });
    expect((await post({ keyPrefix: 'SECOND', emitEngineDefaults: false })).status).toBe(201);
  });

  test('a key already set on the service is 409 naming it, and nothing is written', async () => {
    const { t, tree, owner, post } = setup();
    await t.request('POST', '/api/client/v1/variables', { serviceId: tree.serviceId, key: 'DATABASE_URL', value: 'sqlite://' }, owner.headers);
    const byPrefix = await post();
    expect(byPrefix.status).toBe(409);
    expect(byPrefix.json.error).toMatchObject({ code: 'variable_key_in_use', path: 'keyPrefix' });
    expect(byPrefix.json.error.message).toContain('DATABASE_URL');
    await t.request('POST', '/api/client/v1/variables', { serviceId: tree.serviceId, key: 'PGHOST', value: 'localhost' }, owner.headers);
    const byDefaults = await post({ keyPrefix: 'PG' });
    expect(byDefaults.json.error).toMatchObject({ code: 'variable_key_in_use', path: 'emitEngineDefaults' });
    expect(byDefaults.json.error.message).toContain('PGHOST');
    expect(countRows(t.sqlite, 'binding')).toBe(0);
    expect(countRows(t.sqlite, 'variable')).toBe(2);
    expect((await post({ keyPrefix: 'PG', emitEngineDefaults: false })).status).toBe(201);
  });

  test('a cluster without host or port cannot be bound yet (409 managed_not_allocated)', async () => {
    const { t, post } = setup({ host: null, port: null });
    const res = await post();
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('managed_not_allocated');
    expect(countRows(t.sqlite, 'binding')).toBe(0);
  });

  test('only a database user of a managed cluster can be bound (422 principalId)', async () => {
    const { t, owner, post } = setup();
    expect((await post({ principalId: seedSystemPrincipal(t, owner.organizationId).id })).json.error.path).toBe('principalId');
    const loose = await t.request('POST', '/api/client/v1/principals', { organizationId: owner.organizationId, kind: 'database', provider: 'postgres', username: 'loose' }, owner.headers);
    expect((await post({ principalId: loose.json.id })).json.error.path).toBe('principalId');
  });

  test.each([
    [{ databaseName: 'missing' }, 'databaseName'],
    [{ databaseName: '' }, 'databaseName'],
    [{ databaseName: 'd'.repeat(64) }, 'databaseName'],
    [{ keyPrefix: '' }, 'keyPrefix'],
    [{ keyPrefix: 'P'.repeat(65) }, 'keyPrefix'],
    [{ keyPrefix: 'DB-1' }, 'keyPrefix'],
    [{ keyPrefix: '1DB' }, 'keyPrefix'],
    [{ emitEngineDefaults: 'yes' }, 'emitEngineDefaults'],
    [{ metadata: {} }, 'metadata'],
    [{ serviceId: 'x' }, 'serviceId'],
  ])('%j is 422 at %s', async (body, path) => {
    const { t, post } = setup();
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.json.error.path).toBe(path);
    expect(countRows(t.sqlite, 'binding')).toBe(0);
  });

  test('boundaries that pass: a 1- and a 64-character prefix, a 63-character database name', async () => {
    const { post } = setup({ databases: ['app', 'd'.repeat(63)] });
    expect((await post({ keyPrefix: 'P' })).status).toBe(201);
    expect((await post({ keyPrefix: 'P'.repeat(64), databaseName: 'd'.repeat(63), emitEngineDefaults: false })).status).toBe(201);
  });

  test('a foreign database user or service 404; nothing is written', async () => {
    const { t, stranger, foreign, post } = setup();
    expect((await post({ serviceId: foreign.serviceId })).status).toBe(404);
    const foreignUser = seedDatabasePrincipal(t, seedManaged(t, stranger.organizationId));
    expect((await post({ principalId: foreignUser.id })).status).toBe(404);
    expect(countRows(t.sqlite, 'binding')).toBe(0);
    expect(countRows(t.sqlite, 'variable')).toBe(0);
  });
});

describe('GET /bindings', () => {
  test('lists by exactly one of serviceId, principalId; members read', async () => {
    const { t, tree, user, member, foreign, post } = setup();
    const first = (await post()).json.id;
    const second = (await post({ serviceId: seedService(t, tree.environmentId) })).json.id;
    const get = (query: string, headers = member.headers) => t.request('GET', `${URL}?${query}`, undefined, headers);
    expect((await get(`serviceId=${tree.serviceId}`)).json.data.map((row: { id: string }) => row.id)).toEqual([first]);
    const page = await get(`principalId=${user.id}&limit=1`);
    expect(page.json).toMatchObject({ data: [{ id: first }], nextCursor: first });
    expect((await get(`principalId=${user.id}&cursor=${first}`)).json.data.map((row: { id: string }) => row.id)).toEqual([second]);
    expect((await get(`serviceId=${foreign.serviceId}`)).status).toBe(404);
    expect((await get('')).status).toBe(422);
  });
});

describe('GET, PATCH, DELETE /bindings/:id', () => {
  test('GET: members read; foreign 404', async () => {
    const { t, member, stranger, post } = setup();
    const id = (await post()).json.id;
    expect((await t.request('GET', `${URL}/${id}`, undefined, member.headers)).json.id).toBe(id);
    expect((await t.request('GET', `${URL}/${id}`, undefined, stranger.headers)).status).toBe(404);
  });

  test('PATCH re-materializes: new prefix, database and no engine defaults', async () => {
    const { t, tree, owner, post } = setup();
    const id = (await post()).json.id;
    const res = await t.request('PATCH', `${URL}/${id}`, { keyPrefix: 'STATS', databaseName: 'analytics', emitEngineDefaults: false }, owner.headers);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ keyPrefix: 'STATS', databaseName: 'analytics', emitEngineDefaults: false });
    const { values } = serviceVariables(t, tree.serviceId);
    expect(Object.keys(values).sort()).toEqual(['STATS_HOST', 'STATS_NAME', 'STATS_PASSWORD', 'STATS_PORT', 'STATS_URL', 'STATS_USER']);
    expect(values.STATS_URL).toBe('postgres://shop:p%40ss%3Aw%2Frd@db.internal:5432/analytics');
  });

  test('PATCH refuses what POST refuses and changes nothing: unknown database, taken prefix, colliding key, fixed ends', async () => {
    const { t, tree, owner, post } = setup();
    const id = (await post()).json.id;
    await post({ keyPrefix: 'OTHER', emitEngineDefaults: false });
    await t.request('POST', '/api/client/v1/variables', { serviceId: tree.serviceId, key: 'TAKEN_URL' }, owner.headers);
    const before = serviceVariables(t, tree.serviceId).rows;
    const patch = (body: unknown) => t.request('PATCH', `${URL}/${id}`, body, owner.headers);
    expect((await patch({ databaseName: 'missing' })).json.error.path).toBe('databaseName');
    expect((await patch({ keyPrefix: 'OTHER' })).json.error.code).toBe('key_prefix_in_use');
    expect((await patch({ keyPrefix: 'TAKEN' })).json.error).toMatchObject({ code: 'variable_key_in_use', path: 'keyPrefix' });
    expect((await patch({ serviceId: tree.serviceId })).json.error.path).toBe('serviceId');
    expect(serviceVariables(t, tree.serviceId).rows).toEqual(before);
  });

  test('PATCH and DELETE: foreign 404 changes nothing; DELETE (204) removes its variables', async () => {
    const { t, tree, owner, stranger, post } = setup();
    const id = (await post()).json.id;
    const row = t.db.select().from(binding).where(eq(binding.id, id)).get();
    expect((await t.request('PATCH', `${URL}/${id}`, { keyPrefix: 'X' }, stranger.headers)).status).toBe(404);
    expect((await t.request('DELETE', `${URL}/${id}`, undefined, stranger.headers)).status).toBe(404);
    expect(t.db.select().from(binding).where(eq(binding.id, id)).get()).toEqual(row);
    expect(countRows(t.sqlite, 'variable')).toBe(11);
    expect((await t.request('DELETE', `${URL}/${id}`, undefined, owner.headers)).status).toBe(204);
    expect(countRows(t.sqlite, 'variable')).toBe(0);
    expect(serviceVariables(t, tree.serviceId).rows).toEqual([]);
  });

  test('a service with a binding cannot be deleted (restrict)', async () => {
    const { t, tree, post } = setup();
    const held = seedService(t, tree.environmentId);
    await post({ serviceId: held });
    expect(() => t.sqlite.run('DELETE FROM service WHERE id = ?', [held])).toThrow(/FOREIGN KEY/);
  });
});
