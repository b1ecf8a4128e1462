import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { environment, marker, organization, project, tag, variable, workspace } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { organizationId } = tenants.owner;
  const workspaceId = tenants.tree.workspaceId;
  return { t, ...tenants, organizationId, workspaceId, owner: clientAs(t, tenants.owner), admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member) };
}

const environmentsOf = (t: ReturnType<typeof createTestApp>, projectId: string) =>
  t.db.select().from(environment).where(eq(environment.projectId, projectId)).all();

describe('projects', () => {
  test('create makes the first environment from the organization default; read, update, delete', async () => {
    const { t, admin, member, organizationId, workspaceId } = setup();
    t.db.update(organization).set({ defaultEnvironmentName: 'live/eu' }).where(eq(organization.id, organizationId)).run();
    const created = await admin('POST', '/projects', { workspaceId, name: '  Web Shop ', metadata: { type: 'docker-compose', catalog: 'shop' } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ organizationId, workspaceId, name: 'Web Shop', component: null, repositoryId: null });
    const [first, ...others] = environmentsOf(t, created.json.id);
    expect(others).toHaveLength(0);
    expect(first).toMatchObject({ name: 'live/eu', description: 'Default environment', generation: 0, serverId: null });

    expect((await member('GET', `/projects/${created.json.id}`)).json.metadata).toEqual({ type: 'docker-compose', catalog: 'shop' });
    backdate(t, 'project', created.json.id);
    const updated = await admin('PATCH', `/projects/${created.json.id}`, { description: 'sells things', options: { containerNaming: 'custom' } });
    expect(updated.json).toMatchObject({ name: 'Web Shop', description: 'sells things', options: { containerNaming: 'custom' } });
    expect(Date.parse(updated.json.updatedAt)).toBeGreaterThan(0);

    const refused = await admin('DELETE', `/projects/${created.json.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'has_dependents' });
    expect(refused.json.error.message).toContain('environments');
    expect((await admin('DELETE', `/environments/${first!.id}`)).status).toBe(204);
    expect((await admin('DELETE', `/projects/${created.json.id}`)).status).toBe(204);
    expect(rawRow(t, 'project', created.json.id)).toBeNull();
  });

  test('lists by workspace or by organization, paged', async () => {
    const { owner, organizationId, workspaceId, tree } = setup();
    const other = (await owner('POST', '/workspaces', { organizationId, name: 'Other' })).json.id;
    const ids = [tree.projectId];
    for (const name of ['p1', 'p2', 'p3']) ids.push((await owner('POST', '/projects', { workspaceId, name })).json.id);
    const elsewhere = (await owner('POST', '/projects', { workspaceId: other, name: 'p4' })).json.id;
    expect(await collectPages(owner, `/projects?workspaceId=${workspaceId}`, 2)).toEqual(ids);
    expect(await collectPages(owner, `/projects?organizationId=${organizationId}`, 3)).toEqual([...ids, elsewhere]);
    const missing = await owner('GET', '/projects');
    expect(missing.status).toBe(422);
    expect(missing.json.error.path).toBe('workspaceId');
  });

  test('names are unique per organization after trimming and a full Unicode case fold', async () => {
    const { t, owner, stranger, workspaceId, organizationId } = setup();
    const first = await owner('POST', '/projects', { workspaceId, name: 'Ärger' });
    expect(first.status).toBe(201);
    const other = (await owner('POST', '/workspaces', { organizationId, name: 'Other' })).json.id;
    for (const name of ['Ärger', ' ärger ', 'ÄRGER', 'A\u0308rger']) {
      const res = await owner('POST', '/projects', { workspaceId: other, name });
      expect(res.status).toBe(409);
      expect(res.json.error).toMatchObject({ code: 'project_name_in_use', path: 'name' });
    }
    const second = (await owner('POST', '/projects', { workspaceId, name: 'Second' })).json.id;
    expect((await owner('PATCH', `/projects/${second}`, { name: 'ärger' })).json.error.code).toBe('project_name_in_use');
    expect((await owner('PATCH', `/projects/${first.json.id}`, { name: 'ÄRGER' })).json.name).toBe('ÄRGER');
    const theirs = clientAs(t, stranger);
    const strangerWorkspace = (await theirs('POST', '/workspaces', { organizationId: stranger.organizationId, name: 'W' })).json.id;
    expect((await theirs('POST', '/projects', { workspaceId: strangerWorkspace, name: 'Ärger' })).status).toBe(201);
  });

  test('case folding is Unicode full folding: final and ordinary sigma, ligatures, sharp s', async () => {
    const { owner, workspaceId } = setup();
    for (const [first, again] of [
      ['ΟΔΟΣ', 'οδοσ'],
      ['οδος-2', 'ΟΔΟΣ-2'],
      ['ﬁle', 'FILE'],
      ['Straße', 'STRASSE'],
    ]) {
      expect((await owner('POST', '/projects', { workspaceId, name: first })).status).toBe(201);
      const res = await owner('POST', '/projects', { workspaceId, name: again });
      expect(res.status, `${first} / ${again}`).toBe(409);
      expect(res.json.error.code).toBe('project_name_in_use');
    }
    // Dotless ı is its own letter under the default folding.
    expect((await owner('POST', '/projects', { workspaceId, name: 'kirmizi' })).status).toBe(201);
    expect((await owner('POST', '/projects', { workspaceId, name: 'kırmızı' })).status).toBe(201);
  });

  test('the four platform project names are reserved, compared case-folded', async () => {
    const { owner, workspaceId } = setup();
    for (const name of ['panel', ' Hosting-Ingress ', 'MANAGED-INGRESS', 'Managed-HA']) {
      const res = await owner('POST', '/projects', { workspaceId, name });
      expect(res.status).toBe(409);
      expect(res.json.error.code).toBe('project_name_in_use');
    }
    expect((await owner('POST', '/projects', { workspaceId, name: 'panel-2' })).status).toBe(201);
  });

  test('names are 1 to 255 characters once trimmed', async () => {
    const { owner, workspaceId } = setup();
    expect((await owner('POST', '/projects', { workspaceId, name: 'x' })).status).toBe(201);
    expect((await owner('POST', '/projects', { workspaceId, name: ` ${repeat(255)} ` })).json.name).toBe(repeat(255));
    expect((await owner('POST', '/projects', { workspaceId, name: repeat(255, 'é') })).status).toBe(201);
    for (const name of ['', '   ', repeat(256, 'b')]) {
      const res = await owner('POST', '/projects', { workspaceId, name });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe('name');
    }
  });

  test('metadata.type and options are validated with a path', async () => {
    const { owner, workspaceId } = setup();
    const cases: [unknown, string][] = [
      [{ metadata: { type: 'system' } }, 'metadata.type'],
      [{ metadata: { type: 'helm' } }, 'metadata.type'],
      [{ metadata: ['docker-compose'] }, 'metadata'],
      [{ options: { replicas: 2 } }, 'options.replicas'],
      [{ options: { containerNaming: 'random' } }, 'options.containerNaming'],
      [{ options: { compose: { data: {} } } }, 'options.compose.version'],
      [{ options: { compose: { version: 2 } } }, 'options.compose.version'],
      [{ options: { compose: [] } }, 'options.compose'],
      [{ options: { defaultServerId: 'server-1' } }, 'options.defaultServerId'],
      [{ options: { composeSource: 'git' } }, 'options.composeSource'],
      [{ component: 'panel' }, 'component'],
      [{ repositoryId: null }, 'repositoryId'],
    ];
    for (const [fields, path] of cases) {
      const res = await owner('POST', '/projects', { workspaceId, name: 'p', ...(fields as object) });
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'validation_failed', path });
    }
    const valid = await owner('POST', '/projects', {
      workspaceId,
      name: 'p',
      metadata: { type: 'template', code: 'wordpress' },
      options: { compose: { version: 1, data: { services: {} } }, containerNaming: 'uuid', defaultServerId: null, composeSource: { kind: 'template' } },
    });
    expect(valid.status).toBe(201);
  });

  test('defaultServerId must be a server of the same organization', async () => {
    const { t, owner, workspaceId, tree, foreign } = setup();
    const mine = await owner('POST', '/projects', { workspaceId, name: 'a', options: { defaultServerId: tree.serverId } });
    expect(mine.json.options.defaultServerId).toBe(tree.serverId);
    const theirs = await owner('POST', '/projects', { workspaceId, name: 'b', options: { defaultServerId: foreign.serverId } });
    expect(theirs.status).toBe(404);
    expect((await owner('PATCH', `/projects/${mine.json.id}`, { options: { defaultServerId: foreign.serverId } })).status).toBe(404);
    expect(rawRow(t, 'project', mine.json.id)!.options).toBe(JSON.stringify({ defaultServerId: tree.serverId }));
  });

  test('moves stay inside the organization and out of the platform workspace', async () => {
    const { t, owner, organizationId, workspaceId, tree, foreign } = setup();
    const target = (await owner('POST', '/workspaces', { organizationId, name: 'Target' })).json.id;
    const moved = await owner('PATCH', `/projects/${tree.projectId}`, { workspaceId: target });
    expect(moved.json).toMatchObject({ workspaceId: target, organizationId });
    expect((await owner('PATCH', `/projects/${tree.projectId}`, { workspaceId: foreign.workspaceId })).status).toBe(404);
    const panel = t.db.select().from(workspace).where(eq(workspace.kind, 'panel')).all().find((row) => row.organizationId === organizationId)!;
    expect((await owner('PATCH', `/projects/${tree.projectId}`, { workspaceId: panel.id })).status).toBe(403);
    expect((await owner('POST', '/projects', { workspaceId: panel.id, name: 'mine' })).status).toBe(403);
    expect(rawRow(t, 'project', tree.projectId)!.workspace_id).toBe(target);
    expect(workspaceId).not.toBe(target);
  });

  test('platform projects are read-only to clients', async () => {
    const { t, owner, tree } = setup();
    t.db.update(project).set({ component: 'hosting-ingress' }).where(eq(project.id, tree.projectId)).run();
    expect((await owner('GET', `/projects/${tree.projectId}`)).json.component).toBe('hosting-ingress');
    expect((await owner('PATCH', `/projects/${tree.projectId}`, { description: 'mine now' })).status).toBe(403);
    expect((await owner('DELETE', `/projects/${tree.projectId}`)).status).toBe(403);
  });

  test('deleting a project cascades its variables and markers', async () => {
    const { t, owner, workspaceId, organizationId } = setup();
    const created = (await owner('POST', '/projects', { workspaceId, name: 'Doomed' })).json.id;
    t.db.delete(environment).where(eq(environment.projectId, created)).run();
    const label = t.db.insert(tag).values({ organizationId, name: 'red' }).returning().get();
    t.db.insert(marker).values({ tagId: label.id, projectId: created }).run();
    t.db.insert(variable).values({ projectId: created, key: 'A', value: '1' }).run();
    expect((await owner('DELETE', `/projects/${created}`)).status).toBe(204);
    expect(t.db.select().from(marker).all()).toHaveLength(0);
    expect(t.db.select().from(variable).where(eq(variable.projectId, created)).all()).toHaveLength(0);
  });

  test("another organization's project answers 404 and stays unchanged", async () => {
    const { t, owner, foreign } = setup();
    const before = rawRow(t, 'project', foreign.projectId);
    expect((await owner('GET', `/projects/${foreign.projectId}`)).status).toBe(404);
    expect((await owner('PATCH', `/projects/${foreign.projectId}`, { name: 'mine' })).status).toBe(404);
    expect((await owner('DELETE', `/projects/${foreign.projectId}`)).status).toBe(404);
    expect((await owner('GET', `/projects?workspaceId=${foreign.workspaceId}`)).status).toBe(404);
    expect((await owner('POST', '/projects', { workspaceId: foreign.workspaceId, name: 'sneaky' })).status).toBe(404);
    expect(rawRow(t, 'project', foreign.projectId)).toEqual(before);
    expect(t.db.select().from(project).where(eq(project.name, 'sneaky')).all()).toHaveLength(0);
  });
});
