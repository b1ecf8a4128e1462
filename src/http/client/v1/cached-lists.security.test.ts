/**
 * The list pages answered from the answer cache (src/http/answer-cache.ts): services,
 * environments, projects and workspaces. A kept page must never outlive a change of its rows,
 * whoever writes them, and must never reach a caller the request's own authorization refuses.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { membership } from '../../../db/schema/index.ts';
import { clientAs } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedService, seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { tree } = tenants;
  const lists = [
    { table: 'service', path: `/services?environmentId=${tree.environmentId}`, id: tree.serviceId },
    { table: 'environment', path: `/environments?projectId=${tree.projectId}`, id: tree.environmentId },
    { table: 'project', path: `/projects?workspaceId=${tree.workspaceId}`, id: tree.projectId },
    { table: 'workspace', path: `/workspaces?organizationId=${tree.organizationId}`, id: tree.workspaceId },
  ];
  return { t, ...tenants, lists, owner: clientAs(t, tenants.owner), member: clientAs(t, tenants.member), stranger: clientAs(t, tenants.stranger) };
}

const descriptionOf = (page: { data: { id: string; description: string | null }[] }, id: string) => page.data.find((row) => row.id === id)?.description;

describe('list pages answered from the cache', () => {
  test('a page asked for again is answered from the cache: with its counter trigger gone, a raw write goes unseen', async () => {
    const { t, member, lists } = setup();
    const { path, id, table } = lists[0]!;
    expect(descriptionOf((await member('GET', path)).json, id)).toBeNull();
    // Only to observe the cache: without the trigger the write does not count (table-change.test.ts keeps the triggers).
    t.sqlite.run(`DROP TRIGGER ${table}_count_update`);
    t.sqlite.run(`UPDATE ${table} SET description = 'unseen' WHERE id = ?`, [id]);
    const again = await member('GET', path);
    expect(descriptionOf(again.json, id)).toBeNull();
    // Answered from the cache, it is still an ordinary answer of this request.
    expect(again.headers.get('content-type')).toStartWith('application/json');
    expect(again.headers.get('x-content-type-options')).toBe('nosniff');
    expect(again.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('every write to the rows of a kept page is seen by the next request: through the API and by raw SQL', async () => {
    const { t, owner, member, lists, tree } = setup();
    for (const { table, path, id } of lists) {
      expect(descriptionOf((await member('GET', path)).json, id)).toBeNull();
      t.sqlite.run(`UPDATE ${table} SET description = 'by sql' WHERE id = ?`, [id]);
      expect({ table, description: descriptionOf((await member('GET', path)).json, id) }).toEqual({ table, description: 'by sql' });
      const collection = table === 'service' ? 'services' : `${table}s`;
      expect((await owner('PATCH', `/${collection}/${id}`, { description: 'by api' })).status).toBe(200);
      expect({ table, description: descriptionOf((await member('GET', path)).json, id) }).toEqual({ table, description: 'by api' });
    }
    const added = seedService(t, tree.environmentId);
    expect((await member('GET', lists[0]!.path)).json.data.map((row: { id: string }) => row.id)).toContain(added);
  });

  test('the first request of a fresh app, which registers the list routes, is refused without credentials', async () => {
    for (const { path } of setup().lists) {
      const { t } = setup();
      expect({ path, status: (await clientAs(t)('GET', path)).status }).toEqual({ path, status: 401 });
    }
  });

  test("a kept page is never answered to a caller the request's authorization refuses", async () => {
    const { t, member, stranger, lists, tree } = setup();
    for (const { path } of lists) {
      expect((await member('GET', path)).status).toBe(200);
      expect({ path, status: (await stranger('GET', path)).status }).toEqual({ path, status: 404 });
      expect({ path, status: (await clientAs(t)('GET', path)).status }).toEqual({ path, status: 401 });
    }
    t.db.delete(membership).where(eq(membership.organizationId, tree.organizationId)).run();
    for (const { path } of lists) expect({ path, status: (await member('GET', path)).status }).toEqual({ path, status: 404 });
  });

  test('pages of other parents and other page sizes are kept apart', async () => {
    const { t, member, tree } = setup();
    const second = seedService(t, tree.environmentId);
    const first = await member('GET', `/services?environmentId=${tree.environmentId}&limit=1`);
    expect(first.json.data.map((row: { id: string }) => row.id)).toEqual([tree.serviceId]);
    const both = await member('GET', `/services?environmentId=${tree.environmentId}&limit=2`);
    expect(both.json.data.map((row: { id: string }) => row.id)).toEqual([tree.serviceId, second]);
    const next = await member('GET', `/services?environmentId=${tree.environmentId}&limit=1&cursor=${first.json.nextCursor}`);
    expect(next.json.data.map((row: { id: string }) => row.id)).toEqual([second]);
  });
});
