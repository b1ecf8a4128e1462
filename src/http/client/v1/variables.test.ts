import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { variable } from '../../../db/schema/index.ts';
import { VARIABLE_SCOPES } from '../../../domain/variables/scope.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { tokenFor } from '../../../../test/identity.ts';
import { seedService, seedTenants } from '../../../../test/seed.ts';
import { countRows } from '../../../../test/db.ts';

const URL = '/api/client/v1/variables';
const MISSING_ID = '01900000-0000-7000-8000-000000000000';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const post = (body: unknown, headers = tenants.owner.headers) => t.request('POST', URL, body, headers);
  return { t, ...tenants, post };
}

describe('POST /variables', () => {
  test.each(VARIABLE_SCOPES)('creates a variable at %s scope with the documented defaults', async (scope) => {
    const { tree, post } = setup();
    const res = await post({ [scope]: tree[scope], key: 'APP_MODE', value: 'production' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ [scope]: tree[scope], key: 'APP_MODE', value: 'production', isSecret: false, isLiteral: false, forBuild: false, forRuntime: true, description: null, bindingId: null });
    for (const other of VARIABLE_SCOPES.filter((s) => s !== scope)) expect(res.json[other]).toBeNull();
    expect(res.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('stores flags and description as sent; an admin may write', async () => {
    const { tree, admin, post } = setup();
    const res = await post({ serviceId: tree.serviceId, key: 'PRICE', value: '$5', isLiteral: true, forBuild: true, forRuntime: false, description: 'shown in the shop' }, admin.headers);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ value: '$5', isLiteral: true, forBuild: true, forRuntime: false, description: 'shown in the shop' });
  });

  test('401 without credentials', async () => {
    const { t, tree } = setup();
    expect((await t.request('POST', URL, { serviceId: tree.serviceId, key: 'A' })).status).toBe(401);
    expect(countRows(t.sqlite, 'variable')).toBe(0);
  });

  test.each(VARIABLE_SCOPES)("another organization's %s answers 404 and writes nothing", async (scope) => {
    const { t, foreign, post } = setup();
    const res = await post({ [scope]: foreign[scope], key: 'A', value: 'x' });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    expect(countRows(t.sqlite, 'variable')).toBe(0);
  });

  test('a scope parent that does not exist answers 404', async () => {
    const { post } = setup();
    expect((await post({ projectId: MISSING_ID, key: 'A' })).status).toBe(404);
  });

  test('no scope, or two scopes, is 422 with a path naming the scope', async () => {
    const { tree, post } = setup();
    const none = await post({ key: 'A', value: 'x' });
    expect(none.status).toBe(422);
    expect(none.json.error).toMatchObject({ code: 'validation_failed', path: 'scope' });
    const two = await post({ projectId: tree.projectId, serviceId: tree.serviceId, key: 'A' });
    expect(two.status).toBe(422);
    expect(two.json.error.path).toBe('serviceId');
  });

  test('a member (session or member token) may not write: 403', async () => {
    const { t, tree, member, post } = setup();
    const res = await post({ serviceId: tree.serviceId, key: 'A' }, member.headers);
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('forbidden');
    expect((await post({ serviceId: tree.serviceId, key: 'A' }, tokenFor(t, member, 'member'))).status).toBe(403);
    expect(countRows(t.sqlite, 'variable')).toBe(0);
  });

  test('a key is unique per scope parent: 409 variable_key_in_use; other parents may reuse it', async () => {
    const { t, tree, post } = setup();
    expect((await post({ serviceId: tree.serviceId, key: 'PORT', value: '1' })).status).toBe(201);
    const again = await post({ serviceId: tree.serviceId, key: 'PORT', value: '2' });
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'variable_key_in_use', path: 'key' });
    expect((await post({ serviceId: seedService(t, tree.environmentId), key: 'PORT' })).status).toBe(201);
    expect((await post({ environmentId: tree.environmentId, key: 'PORT' })).status).toBe(201);
    expect((await post({ serviceId: tree.serviceId, key: 'port' })).status).toBe(201);
  });

  test.each([
    ['', 422],
    ['A', 201],
    ['_', 201],
    ['a'.repeat(255), 201],
    ['a'.repeat(256), 422],
    ['9LIVES', 422],
    ['MY-KEY', 422],
    ['MY KEY', 422],
    ['_9_lives', 201],
  ])('key %p answers %p', async (key, status) => {
    const { tree, post } = setup();
    const res = await post({ organizationId: tree.organizationId, key, value: 'v' });
    expect(res.status).toBe(status);
    if (status === 422) expect(res.json.error.path).toBe('key');
  });

  test.each([
    ['', 201],
    ['x', 201],
    ['x'.repeat(65536), 201],
    ['x'.repeat(65537), 422],
    ['é'.repeat(32768), 201],
    ['é'.repeat(32769), 422],
  ])('a value of %#: 64 KiB of UTF-8 at most', async (value, status) => {
    const { tree, post } = setup();
    const res = await post({ organizationId: tree.organizationId, key: 'BIG', value });
    expect(res.status).toBe(status);
    if (status === 422) expect(res.json.error.path).toBe('value');
  });

  test('bad input is 422 with a path: types, unknown fields, malformed ids', async () => {
    const { tree, post } = setup();
    const cases: [unknown, string][] = [
      [{ serviceId: tree.serviceId, key: 'A', forBuild: 'yes' }, 'forBuild'],
      [{ serviceId: tree.serviceId, key: 'A', colour: 'red' }, 'colour'],
      [{ serviceId: 'not-a-uuid', key: 'A' }, 'serviceId'],
      [{ serviceId: tree.serviceId }, 'key'],
    ];
    for (const [body, path] of cases) {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(path);
    }
  });
});

describe('GET /variables', () => {
  async function seedVariables(ctx: ReturnType<typeof setup>, count: number) {
    for (let i = 0; i < count; i++) await ctx.post({ serviceId: ctx.tree.serviceId, key: `K${i}`, value: String(i) });
    await ctx.post({ environmentId: ctx.tree.environmentId, key: 'OTHER_SCOPE' });
  }

  test("lists one scope parent's variables in creation order, paged; members may read", async () => {
    const ctx = setup();
    await seedVariables(ctx, 3);
    const first = await ctx.t.request('GET', `${URL}?serviceId=${ctx.tree.serviceId}&limit=2`, undefined, ctx.member.headers);
    expect(first.status).toBe(200);
    expect(first.json.data.map((row: { key: string }) => row.key)).toEqual(['K0', 'K1']);
    expect(first.json.nextCursor).toBe(first.json.data[1].id);
    const rest = await ctx.t.request('GET', `${URL}?serviceId=${ctx.tree.serviceId}&limit=2&cursor=${first.json.nextCursor}`, undefined, ctx.member.headers);
    expect(rest.json).toMatchObject({ data: [{ key: 'K2' }], nextCursor: null });
  });

  test('401, foreign parent 404, and exactly one scope parameter (422)', async () => {
    const ctx = setup();
    await seedVariables(ctx, 1);
    expect((await ctx.t.request('GET', `${URL}?serviceId=${ctx.tree.serviceId}`)).status).toBe(401);
    expect((await ctx.t.request('GET', `${URL}?serviceId=${ctx.foreign.serviceId}`, undefined, ctx.owner.headers)).status).toBe(404);
    const none = await ctx.t.request('GET', URL, undefined, ctx.owner.headers);
    expect(none.status).toBe(422);
    expect(none.json.error.path).toBe('scope');
    const two = await ctx.t.request('GET', `${URL}?serviceId=${ctx.tree.serviceId}&projectId=${ctx.tree.projectId}`, undefined, ctx.owner.headers);
    expect(two.status).toBe(422);
    expect((await ctx.t.request('GET', `${URL}?serviceId=${ctx.tree.serviceId}&limit=0`, undefined, ctx.owner.headers)).json.error.path).toBe('limit');
  });
});

describe('GET, PATCH, DELETE /variables/:id', () => {
  async function created(ctx: ReturnType<typeof setup>, body: Record<string, unknown> = {}) {
    const res = await ctx.post({ projectId: ctx.tree.projectId, key: 'MODE', value: 'dev', ...body });
    expect(res.status).toBe(201);
    return res.json as { id: string };
  }

  test('GET reads one; 401; another organization or a bad id answers 404 / 422', async () => {
    const ctx = setup();
    const row = await created(ctx);
    expect((await ctx.t.request('GET', `${URL}/${row.id}`, undefined, ctx.member.headers)).json).toMatchObject({ id: row.id, value: 'dev' });
    expect((await ctx.t.request('GET', `${URL}/${row.id}`)).status).toBe(401);
    expect((await ctx.t.request('GET', `${URL}/${row.id}`, undefined, ctx.stranger.headers)).status).toBe(404);
    expect((await ctx.t.request('GET', `${URL}/${MISSING_ID}`, undefined, ctx.owner.headers)).status).toBe(404);
    expect((await ctx.t.request('GET', `${URL}/nope`, undefined, ctx.owner.headers)).json.error.path).toBe('id');
  });

  test('PATCH changes value, flags and description and keeps the rest', async () => {
    const ctx = setup();
    const row = await created(ctx, { description: 'before' });
    const res = await ctx.t.request('PATCH', `${URL}/${row.id}`, { value: 'prod', isLiteral: true, forBuild: true, forRuntime: false, description: null }, ctx.owner.headers);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ key: 'MODE', value: 'prod', isLiteral: true, forBuild: true, forRuntime: false, description: null });
    const flagsOnly = await ctx.t.request('PATCH', `${URL}/${row.id}`, { forRuntime: true }, ctx.owner.headers);
    expect(flagsOnly.json).toMatchObject({ value: 'prod', isLiteral: true, forRuntime: true });
  });

  test('PATCH: 401, member 403, foreign 404 and 422 leave the row unchanged', async () => {
    const ctx = setup();
    const row = await created(ctx);
    const before = ctx.t.db.select().from(variable).where(eq(variable.id, row.id)).get();
    expect((await ctx.t.request('PATCH', `${URL}/${row.id}`, { value: 'x' })).status).toBe(401);
    expect((await ctx.t.request('PATCH', `${URL}/${row.id}`, { value: 'x' }, ctx.member.headers)).status).toBe(403);
    expect((await ctx.t.request('PATCH', `${URL}/${row.id}`, { value: 'x' }, ctx.stranger.headers)).status).toBe(404);
    const bad = await ctx.t.request('PATCH', `${URL}/${row.id}`, { key: 'RENAMED' }, ctx.owner.headers);
    expect(bad.status).toBe(422);
    expect(bad.json.error.path).toBe('key');
    const tooBig = await ctx.t.request('PATCH', `${URL}/${row.id}`, { value: 'x'.repeat(65537) }, ctx.owner.headers);
    expect(tooBig.json.error.path).toBe('value');
    expect(ctx.t.db.select().from(variable).where(eq(variable.id, row.id)).get()).toEqual(before);
  });

  test('DELETE removes it (204); 401, member 403 and foreign 404 keep it', async () => {
    const ctx = setup();
    const row = await created(ctx);
    expect((await ctx.t.request('DELETE', `${URL}/${row.id}`)).status).toBe(401);
    expect((await ctx.t.request('DELETE', `${URL}/${row.id}`, undefined, ctx.member.headers)).status).toBe(403);
    expect((await ctx.t.request('DELETE', `${URL}/${row.id}`, undefined, ctx.stranger.headers)).status).toBe(404);
    expect((await ctx.t.request('DELETE', `${URL}/not-an-id`, undefined, ctx.owner.headers)).status).toBe(422);
    expect(countRows(ctx.t.sqlite, 'variable')).toBe(1);
    const res = await ctx.t.request('DELETE', `${URL}/${row.id}`, undefined, ctx.owner.headers);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await ctx.t.request('GET', `${URL}/${row.id}`, undefined, ctx.owner.headers)).status).toBe(404);
  });

  test('deleting a scope parent cascades to its variables', async () => {
    const ctx = setup();
    await ctx.post({ serverId: ctx.tree.serverId, key: 'ZONE', value: 'eu' });
    ctx.t.sqlite.run('DELETE FROM server WHERE id = ?', [ctx.tree.serverId]);
    expect(countRows(ctx.t.sqlite, 'variable')).toBe(0);
  });
});

describe('OpenAPI', () => {
  test('documents every route of variables, principals, tenancies, managed and bindings with its answers', async () => {
    const { t } = setup();
    const { paths } = (await t.request('GET', '/api/openapi.json')).json;
    const routes: [string, string, string[]][] = [];
    for (const collection of ['variables', 'principals', 'managed', 'bindings', 'tenancies']) {
      const errors = (...statuses: number[]) => ['401', ...statuses.map(String)];
      routes.push(
        [`/api/client/v1/${collection}`, 'post', ['201', ...errors(403, 404, 422)]],
        [`/api/client/v1/${collection}`, 'get', ['200', ...errors(404, 422)]],
        [`/api/client/v1/${collection}/{id}`, 'get', ['200', ...errors(404, 422)]],
        [`/api/client/v1/${collection}/{id}`, 'delete', errors(403, 404, 422)],
      );
      if (collection !== 'tenancies') routes.push([`/api/client/v1/${collection}/{id}`, 'patch', ['200', ...errors(403, 404, 422)]]);
    }
    for (const [path, method, statuses] of routes) {
      expect(Object.keys(paths[path]?.[method]?.responses ?? {})).toEqual(expect.arrayContaining(statuses));
    }
  });
});
