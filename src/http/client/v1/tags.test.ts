import { describe, expect, test } from 'bun:test';
import { marker, tag } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { organizationId } = tenants.owner;
  return { t, ...tenants, organizationId, owner: clientAs(t, tenants.owner), admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member) };
}

describe('tags', () => {
  test('create, read, list, change and delete; deleting a tag removes its markers', async () => {
    const { t, admin, member, organizationId, tree } = setup();
    const created = await admin('POST', '/tags', { organizationId, name: '  Prod ', description: '  live \n\t traffic  only ', color: '#0aF' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ organizationId, name: 'Prod', description: 'live traffic only', color: '#0aF' });
    expect((await member('GET', `/tags/${created.json.id}`)).json.name).toBe('Prod');
    const more = [(await admin('POST', '/tags', { organizationId, name: 'b' })).json.id, (await admin('POST', '/tags', { organizationId, name: 'c' })).json.id];
    expect(await collectPages(member, `/tags?organizationId=${organizationId}`, 2)).toEqual([created.json.id, ...more]);

    backdate(t, 'tag', created.json.id);
    const changed = await admin('PATCH', `/tags/${created.json.id}`, { name: 'Production', description: '   ', color: null });
    expect(changed.json).toMatchObject({ name: 'Production', description: null, color: null });
    expect(Date.parse(changed.json.updatedAt)).toBeGreaterThan(0);

    t.db.insert(marker).values({ tagId: created.json.id, projectId: tree.projectId }).run();
    expect((await admin('DELETE', `/tags/${created.json.id}`)).status).toBe(204);
    expect(t.db.select().from(marker).all()).toHaveLength(0);
    expect((await admin('GET', `/tags/${created.json.id}`)).status).toBe(404);
  });

  test('names are unique per organization once trimmed and lower-cased', async () => {
    const { t, owner, stranger, organizationId } = setup();
    const first = (await owner('POST', '/tags', { organizationId, name: 'Ünicode' })).json.id;
    for (const name of ['Ünicode', ' ünicode', 'ÜNICODE ']) {
      const res = await owner('POST', '/tags', { organizationId, name });
      expect(res.status).toBe(409);
      expect(res.json.error).toMatchObject({ code: 'name_in_use', path: 'name' });
    }
    const second = (await owner('POST', '/tags', { organizationId, name: 'other' })).json.id;
    expect((await owner('PATCH', `/tags/${second}`, { name: 'üNICODE' })).status).toBe(409);
    expect((await owner('PATCH', `/tags/${first}`, { name: 'ÜNICODE' })).json.name).toBe('ÜNICODE');
    expect((await clientAs(t, stranger)('POST', '/tags', { organizationId: stranger.organizationId, name: 'Ünicode' })).status).toBe(201);
  });

  test('names have no format rule but 1 to 255 characters once trimmed', async () => {
    const { owner, organizationId } = setup();
    for (const name of ['x', repeat(255), 'team/payments 🚀', '<b>']) expect((await owner('POST', '/tags', { organizationId, name })).json.name).toBe(name);
    for (const name of ['', '   ', repeat(256, 'z')]) {
      const res = await owner('POST', '/tags', { organizationId, name });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe('name');
    }
    expect((await owner('POST', '/tags', { organizationId })).json.error.path).toBe('name');
  });

  test('colors are #rgb or #rrggbb, null when unset', async () => {
    const { owner, organizationId } = setup();
    let index = 0;
    const create = (color?: unknown) => owner('POST', '/tags', { organizationId, name: `t${++index}`, ...(color === undefined ? {} : { color }) });
    for (const color of ['#abc', '#A1B2C3']) expect((await create(color)).json.color).toBe(color);
    expect((await create()).json.color).toBeNull();
    expect((await create(null)).json.color).toBeNull();
    for (const color of ['abc', '#abcd', '#ggg', 'red', '#1234567', '']) {
      const res = await create(color);
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe('color');
    }
  });

  test("another organization's tag answers 404 and stays unchanged", async () => {
    const { t, owner, stranger } = setup();
    const theirs = (await clientAs(t, stranger)('POST', '/tags', { organizationId: stranger.organizationId, name: 'secret' })).json.id;
    const before = rawRow(t, 'tag', theirs);
    expect((await owner('GET', `/tags/${theirs}`)).status).toBe(404);
    expect((await owner('PATCH', `/tags/${theirs}`, { name: 'mine' })).status).toBe(404);
    expect((await owner('DELETE', `/tags/${theirs}`)).status).toBe(404);
    expect((await owner('GET', `/tags?organizationId=${stranger.organizationId}`)).status).toBe(404);
    expect((await owner('POST', '/tags', { organizationId: stranger.organizationId, name: 'sneaky' })).status).toBe(404);
    expect(rawRow(t, 'tag', theirs)).toEqual(before);
    expect(t.db.select().from(tag).all()).toHaveLength(1);
  });
});
