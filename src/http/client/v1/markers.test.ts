import { describe, expect, test } from 'bun:test';
import { datacenter, marker, storage } from '../../../db/schema/index.ts';
import { newId } from '../../../lib/ids.ts';
import { clientAs, collectPages } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedTenants, type SeededTree } from '../../../../test/seed.ts';

type TestApp = ReturnType<typeof createTestApp>;

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { organizationId } = tenants.owner;
  return { t, ...tenants, organizationId, owner: clientAs(t, tenants.owner), member: clientAs(t, tenants.member) };
}

/** One entity of every taggable kind in the tree's organization, by API collection. */
function taggables(t: TestApp, tree: SeededTree): Record<string, string> {
  const { organizationId } = tree;
  return {
    servers: tree.serverId,
    workspaces: tree.workspaceId,
    projects: tree.projectId,
    environments: tree.environmentId,
    services: tree.serviceId,
    datacenters: t.db.insert(datacenter).values({ organizationId, name: 'eu-1' }).returning().get().id,
    storages: t.db.insert(storage).values({ organizationId, name: 'backups', kind: 's3' }).returning().get().id,
  };
}

const idsOf = (res: { json: { data: { id: string }[] } }) => res.json.data.map((row) => row.id);

describe('markers', () => {
  test('PUT replaces the whole tag set of every taggable kind; GET lists it', async () => {
    const { t, owner, member, organizationId, tree } = setup();
    const [a, b] = [(await owner('POST', '/tags', { organizationId, name: 'a' })).json.id, (await owner('POST', '/tags', { organizationId, name: 'b' })).json.id];
    for (const [collection, id] of Object.entries(taggables(t, tree))) {
      const path = `/${collection}/${id}/tags`;
      const set = await owner('PUT', path, { tagIds: [b, a, b] });
      expect(set.status).toBe(200);
      expect(idsOf(set)).toEqual([a, b]);
      expect(idsOf(await member('GET', path))).toEqual([a, b]);
      expect(await collectPages(member, path, 1)).toEqual([a, b]);
      expect(idsOf(await owner('PUT', path, { tagIds: [b] }))).toEqual([b]);
      expect(idsOf(await member('GET', path))).toEqual([b]);
      expect(idsOf(await owner('PUT', path, { tagIds: [] }))).toEqual([]);
    }
    expect(t.db.select().from(marker).all()).toHaveLength(0);
  });

  test('GET /markers lists the markers applying a tag, paged', async () => {
    const { t, owner, member, organizationId, tree } = setup();
    const label = (await owner('POST', '/tags', { organizationId, name: 'shared' })).json.id;
    const entities = taggables(t, tree);
    for (const [collection, id] of Object.entries(entities)) await owner('PUT', `/${collection}/${id}/tags`, { tagIds: [label] });
    const ids = await collectPages(member, `/markers?tagId=${label}`, 3);
    expect(ids).toHaveLength(7);
    const first = (await member('GET', `/markers?tagId=${label}&limit=1`)).json.data[0];
    expect(first).toMatchObject({ tagId: label, serverId: tree.serverId, workspaceId: null, storageId: null });
    const missing = await member('GET', '/markers');
    expect(missing.status).toBe(422);
    expect(missing.json.error.path).toBe('tagId');
  });

  test("another organization's tags or entities answer 404 and the set stays as it was", async () => {
    const { t, owner, stranger, organizationId, tree, foreign } = setup();
    const mine = (await owner('POST', '/tags', { organizationId, name: 'mine' })).json.id;
    const theirs = (await clientAs(t, stranger)('POST', '/tags', { organizationId: stranger.organizationId, name: 'theirs' })).json.id;
    const path = `/projects/${tree.projectId}/tags`;
    await owner('PUT', path, { tagIds: [mine] });
    for (const tagIds of [[mine, theirs], [newId()]]) {
      const res = await owner('PUT', path, { tagIds });
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('not_found');
    }
    expect(idsOf(await owner('GET', path))).toEqual([mine]);
    for (const [collection, id] of Object.entries(taggables(t, foreign))) {
      expect((await owner('PUT', `/${collection}/${id}/tags`, { tagIds: [mine] })).status).toBe(404);
      expect((await owner('GET', `/${collection}/${id}/tags`)).status).toBe(404);
    }
    expect((await owner('GET', `/markers?tagId=${theirs}`)).status).toBe(404);
    expect(t.db.select().from(marker).all()).toHaveLength(1);
  });

  test('the body is validated with a path', async () => {
    const { owner, tree } = setup();
    const path = `/services/${tree.serviceId}/tags`;
    const cases: [unknown, string][] = [
      [{}, 'tagIds'],
      [{ tagIds: 'a' }, 'tagIds'],
      [{ tagIds: ['not-a-uuid'] }, 'tagIds.0'],
      [{ tagIds: Array.from({ length: 201 }, () => newId()) }, 'tagIds'],
      [{ tagIds: [], extra: 1 }, 'extra'],
    ];
    for (const [body, errorPath] of cases) {
      const res = await owner('PUT', path, body);
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(errorPath);
    }
  });
});
