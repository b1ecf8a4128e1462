import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { marker, project, tag, workspace } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { organizationId } = tenants.owner;
  const panel = t.db.select().from(workspace).where(eq(workspace.kind, 'panel')).all().find((row) => row.organizationId === organizationId)!;
  return { t, ...tenants, organizationId, panel, owner: clientAs(t, tenants.owner), admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member) };
}

describe('workspaces', () => {
  test('an admin creates, reads, lists, renames and deletes a workspace', async () => {
    const { t, admin, member, organizationId } = setup();
    const created = await admin('POST', '/workspaces', { organizationId, name: 'Apps', description: 'customer apps' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ organizationId, name: 'Apps', description: 'customer apps', kind: 'user' });
    expect(created.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    expect((await member('GET', `/workspaces/${created.json.id}`)).json.name).toBe('Apps');
    backdate(t, 'workspace', created.json.id);
    const renamed = await admin('PATCH', `/workspaces/${created.json.id}`, { name: 'Applications' });
    expect(renamed.status).toBe(200);
    expect(renamed.json.name).toBe('Applications');
    expect(renamed.json.description).toBe('customer apps');
    expect(Date.parse(renamed.json.updatedAt)).toBeGreaterThan(0);

    expect((await admin('DELETE', `/workspaces/${created.json.id}`)).status).toBe(204);
    expect((await admin('GET', `/workspaces/${created.json.id}`)).status).toBe(404);
  });

  test('lists page by id and filter by organization', async () => {
    const { owner, organizationId } = setup();
    for (const name of ['a1', 'a2', 'a3']) expect((await owner('POST', '/workspaces', { organizationId, name })).status).toBe(201);
    const all = (await owner('GET', `/workspaces?organizationId=${organizationId}`)).json.data.map((row: { id: string }) => row.id);
    expect(all).toHaveLength(6); // TurboPanel, Default, the seeded one and three more
    expect(await collectPages(owner, `/workspaces?organizationId=${organizationId}`, 2)).toEqual(all);
    expect([...all].sort()).toEqual(all);
    expect((await owner('GET', '/workspaces')).json.error.path).toBe('organizationId');
    expect((await owner('GET', `/workspaces?organizationId=${organizationId}&limit=0`)).json.error.path).toBe('limit');
  });

  test('names match ^[A-Za-z0-9 ._-]+$ with 1 to 255 characters', async () => {
    const { owner, organizationId } = setup();
    for (const name of ['x', repeat(255), 'My ws_1.0-beta']) {
      expect((await owner('POST', '/workspaces', { organizationId, name })).status).toBe(201);
    }
    for (const name of ['', repeat(256), 'a/b', 'café', 'tab\there']) {
      const res = await owner('POST', '/workspaces', { organizationId, name });
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'validation_failed', path: 'name' });
    }
    expect((await owner('POST', '/workspaces', { organizationId })).json.name).toBeNull();
  });

  test('names are unique per organization, ignoring case, and TurboPanel is reserved', async () => {
    const { owner, stranger, t, organizationId } = setup();
    const first = await owner('POST', '/workspaces', { organizationId, name: 'Apps' });
    for (const name of ['Apps', 'APPS', 'Default', 'TurboPanel', 'turbopanel']) {
      const res = await owner('POST', '/workspaces', { organizationId, name });
      expect(res.status).toBe(409);
      expect(res.json.error).toMatchObject({ code: 'name_in_use', path: 'name' });
    }
    expect((await owner('PATCH', `/workspaces/${first.json.id}`, { name: 'default' })).json.error.code).toBe('name_in_use');
    expect((await owner('PATCH', `/workspaces/${first.json.id}`, { name: 'Apps' })).status).toBe(200);
    const elsewhere = await clientAs(t, stranger)('POST', '/workspaces', { organizationId: stranger.organizationId, name: 'Apps' });
    expect(elsewhere.status).toBe(201);
  });

  test('clients create user workspaces only; the panel workspace is neither renamed nor deleted', async () => {
    const { owner, panel, organizationId, t } = setup();
    const res = await owner('POST', '/workspaces', { organizationId, name: 'Mine', kind: 'panel' });
    expect(res.status).toBe(422);
    expect(res.json.error.path).toBe('kind');
    expect((await owner('POST', '/workspaces', { organizationId, name: 'Mine', kind: 'user' })).status).toBe(201);

    const rename = await owner('PATCH', `/workspaces/${panel.id}`, { name: 'Platform' });
    expect(rename.status).toBe(403);
    expect(rename.json.error.code).toBe('forbidden');
    expect((await owner('DELETE', `/workspaces/${panel.id}`)).status).toBe(403);
    expect(rawRow(t, 'workspace', panel.id)!.name).toBe('TurboPanel');
    const described = await owner('PATCH', `/workspaces/${panel.id}`, { description: 'the platform' });
    expect(described.json).toMatchObject({ name: 'TurboPanel', description: 'the platform' });
  });

  test('delete is refused while projects exist; markers of the workspace cascade', async () => {
    const { owner, t, tree, organizationId } = setup();
    const refused = await owner('DELETE', `/workspaces/${tree.workspaceId}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('has_dependents');
    expect(refused.json.error.message).toContain('projects');

    const empty = (await owner('POST', '/workspaces', { organizationId, name: 'Empty' })).json.id;
    const label = t.db.insert(tag).values({ organizationId, name: 'blue' }).returning().get();
    t.db.insert(marker).values({ tagId: label.id, workspaceId: empty }).run();
    expect((await owner('DELETE', `/workspaces/${empty}`)).status).toBe(204);
    expect(t.db.select().from(marker).all()).toHaveLength(0);
    expect(t.db.select().from(project).where(eq(project.workspaceId, tree.workspaceId)).all()).toHaveLength(1);
  });

  test("another organization's workspace answers 404 and stays unchanged", async () => {
    const { owner, foreign, stranger, t } = setup();
    const before = rawRow(t, 'workspace', foreign.workspaceId);
    expect((await owner('GET', `/workspaces/${foreign.workspaceId}`)).status).toBe(404);
    expect((await owner('PATCH', `/workspaces/${foreign.workspaceId}`, { name: 'Mine' })).status).toBe(404);
    expect((await owner('DELETE', `/workspaces/${foreign.workspaceId}`)).status).toBe(404);
    expect((await owner('GET', `/workspaces?organizationId=${stranger.organizationId}`)).status).toBe(404);
    const create = await owner('POST', '/workspaces', { organizationId: stranger.organizationId, name: 'Sneaky' });
    expect(create.status).toBe(404);
    expect(rawRow(t, 'workspace', foreign.workspaceId)).toEqual(before);
    expect(t.db.select().from(workspace).where(eq(workspace.name, 'Sneaky')).all()).toHaveLength(0);
  });

  test('401 without credentials, 403 for a member write, 422 for unknown fields', async () => {
    const { t, member, tree, organizationId } = setup();
    const anonymous = clientAs(t);
    expect((await anonymous('GET', `/workspaces?organizationId=${organizationId}`)).status).toBe(401);
    expect((await anonymous('POST', '/workspaces', { organizationId, name: 'x' })).status).toBe(401);
    expect((await anonymous('GET', `/workspaces/${tree.workspaceId}`)).status).toBe(401);

    expect((await member('POST', '/workspaces', { organizationId, name: 'x' })).status).toBe(403);
    expect((await member('PATCH', `/workspaces/${tree.workspaceId}`, { name: 'x' })).status).toBe(403);
    expect((await member('DELETE', `/workspaces/${tree.workspaceId}`)).status).toBe(403);
    expect((await member('GET', `/workspaces/${tree.workspaceId}`)).status).toBe(200);

    const extra = await member('PATCH', `/workspaces/${tree.workspaceId}`, { organizationId });
    expect(extra.status).toBe(422);
    expect(extra.json.error.path).toBe('organizationId');
  });
});
