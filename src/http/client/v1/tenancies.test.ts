import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../../../../test/harness.ts';
import { countRows } from '../../../../test/db.ts';
import { seedDatabasePrincipal, seedManaged, seedService, seedSystemPrincipal, seedTenants } from '../../../../test/seed.ts';

const URL = '/api/client/v1/tenancies';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const account = seedSystemPrincipal(t, tenants.owner.organizationId);
  const post = (body: Record<string, unknown>, headers = tenants.owner.headers) =>
    t.request('POST', URL, { principalId: account.id, serviceId: tenants.tree.serviceId, ...body }, headers);
  return { t, ...tenants, account, post };
}

describe('POST /tenancies', () => {
  test('makes a service run as a system principal; an admin may write', async () => {
    const { account, tree, admin, post } = setup();
    const res = await post({}, admin.headers);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ principalId: account.id, serviceId: tree.serviceId });
  });

  test('the pair is unique: 409 tenancy_exists; another service may use the same principal', async () => {
    const { t, tree, post } = setup();
    expect((await post({})).status).toBe(201);
    const again = await post({});
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('tenancy_exists');
    expect((await post({ serviceId: seedService(t, tree.environmentId) })).status).toBe(201);
  });

  test('only system principals (422 principalId)', async () => {
    const { t, owner, post } = setup();
    const user = seedDatabasePrincipal(t, seedManaged(t, owner.organizationId));
    const res = await post({ principalId: user.id });
    expect(res.status).toBe(422);
    expect(res.json.error.path).toBe('principalId');
  });

  test('a foreign principal or service 404; nothing is written', async () => {
    const { t, stranger, foreign, post } = setup();
    expect((await post({ serviceId: foreign.serviceId })).status).toBe(404);
    expect((await post({ principalId: seedSystemPrincipal(t, stranger.organizationId).id })).status).toBe(404);
    expect(countRows(t.sqlite, 'tenancy')).toBe(0);
  });

  test.each([
    [{ principalId: 'nope' }, 'principalId'],
    [{ serviceId: undefined }, 'serviceId'],
    [{ extra: true }, 'extra'],
  ])('%j is 422 at %s', async (body, path) => {
    const { post } = setup();
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.json.error.path).toBe(path);
  });
});

describe('GET /tenancies', () => {
  test('lists by exactly one of serviceId, principalId; members read', async () => {
    const { t, owner, member, tree, foreign, account, post } = setup();
    const first = (await post({})).json.id;
    const otherService = seedService(t, tree.environmentId);
    const second = (await post({ serviceId: otherService })).json.id;
    const otherAccount = seedSystemPrincipal(t, owner.organizationId);
    const third = (await post({ principalId: otherAccount.id })).json.id;
    const get = (query: string, headers = member.headers) => t.request('GET', `${URL}?${query}`, undefined, headers);
    expect((await get(`serviceId=${tree.serviceId}`)).json.data.map((row: { id: string }) => row.id)).toEqual([first, third]);
    const page = await get(`principalId=${account.id}&limit=1`);
    expect(page.json.data.map((row: { id: string }) => row.id)).toEqual([first]);
    expect((await get(`principalId=${account.id}&cursor=${page.json.nextCursor}`)).json.data.map((row: { id: string }) => row.id)).toEqual([second]);
    expect((await get(`serviceId=${foreign.serviceId}`)).status).toBe(404);
    expect((await get('')).json.error.path).toBe('serviceId');
    expect((await get(`serviceId=${tree.serviceId}&principalId=${account.id}`)).json.error.path).toBe('principalId');
  });
});

describe('GET, DELETE /tenancies/:id', () => {
  test('GET: members read; foreign 404; bad id 422', async () => {
    const { t, member, stranger, owner, post } = setup();
    const id = (await post({})).json.id;
    expect((await t.request('GET', `${URL}/${id}`, undefined, member.headers)).json.id).toBe(id);
    expect((await t.request('GET', `${URL}/${id}`, undefined, stranger.headers)).status).toBe(404);
    expect((await t.request('GET', `${URL}/1`, undefined, owner.headers)).status).toBe(422);
  });

  test('DELETE (204); foreign 404 keeps it', async () => {
    const { t, stranger, owner, post } = setup();
    const id = (await post({})).json.id;
    expect((await t.request('DELETE', `${URL}/${id}`, undefined, stranger.headers)).status).toBe(404);
    expect(countRows(t.sqlite, 'tenancy')).toBe(1);
    expect((await t.request('DELETE', `${URL}/${id}`, undefined, owner.headers)).status).toBe(204);
    expect(countRows(t.sqlite, 'tenancy')).toBe(0);
  });

  test('a service with a tenancy cannot be deleted (restrict)', async () => {
    const { t, tree, post } = setup();
    const [held, free] = [seedService(t, tree.environmentId), seedService(t, tree.environmentId)];
    await post({ serviceId: held });
    expect(() => t.sqlite.run('DELETE FROM service WHERE id = ?', [held])).toThrow(/FOREIGN KEY/);
    t.sqlite.run('DELETE FROM service WHERE id = ?', [free]);
  });
});
