import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { deployment, environment, marker, tag, variable } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { projectId } = tenants.tree;
  return { t, ...tenants, projectId, owner: clientAs(t, tenants.owner), admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member) };
}

describe('environments', () => {
  test('an admin creates, reads, lists, changes and deletes an environment', async () => {
    const { t, admin, member, projectId, tree } = setup();
    const created = await admin('POST', '/environments', { projectId, name: 'staging', description: 'pre-release' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ projectId, name: 'staging', description: 'pre-release', serverId: null, generation: 0 });
    expect((await member('GET', `/environments/${created.json.id}`)).json.name).toBe('staging');
    expect(await collectPages(member, `/environments?projectId=${projectId}`, 1)).toEqual([tree.environmentId, created.json.id]);

    backdate(t, 'environment', created.json.id);
    const changed = await admin('PATCH', `/environments/${created.json.id}`, { name: 'qa/eu-1', description: null });
    expect(changed.json).toMatchObject({ name: 'qa/eu-1', description: null });
    expect(Date.parse(changed.json.updatedAt)).toBeGreaterThan(0);
    expect((await admin('DELETE', `/environments/${created.json.id}`)).status).toBe(204);
    expect((await admin('GET', `/environments/${created.json.id}`)).status).toBe(404);
  });

  test('names match ^[A-Za-z0-9 ._/-]+$ with 1 to 255 characters', async () => {
    const { owner, projectId } = setup();
    for (const name of ['x', repeat(255), 'eu/prod 1_a.b-c']) expect((await owner('POST', '/environments', { projectId, name })).status).toBe(201);
    for (const name of ['', repeat(256), 'a:b', 'prod!']) {
      const res = await owner('POST', '/environments', { projectId, name });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe('name');
    }
  });

  test('serverId and component are stripped from metadata, placement keys from options', async () => {
    const { owner, projectId, tree } = setup();
    const compose = { version: 1, data: { services: { web: { image: 'nginx' } } } };
    const created = await owner('POST', '/environments', {
      projectId,
      name: 'x',
      metadata: { serverId: tree.serverId, component: 'panel', owner: 'ops' },
      options: { compose, placement: { serverId: tree.serverId }, serverId: tree.serverId },
    });
    expect(created.json).toMatchObject({ metadata: { owner: 'ops' }, options: { compose }, serverId: null });
    const patched = await owner('PATCH', `/environments/${created.json.id}`, {
      metadata: { component: 'managed-ha', team: 'a' },
      options: { placement: 'anywhere' },
    });
    expect(patched.json).toMatchObject({ metadata: { team: 'a' }, options: {} });
  });

  test('serverId pins a server of the same organization; null clears it', async () => {
    const { t, owner, tree, foreign } = setup();
    const path = `/environments/${tree.environmentId}`;
    expect((await owner('PATCH', path, { serverId: tree.serverId })).json.serverId).toBe(tree.serverId);
    const foreignPin = await owner('PATCH', path, { serverId: foreign.serverId, name: 'changed' });
    expect(foreignPin.status).toBe(404);
    expect(rawRow(t, 'environment', tree.environmentId)).toMatchObject({ server_id: tree.serverId, name: 'production' });
    expect((await owner('PATCH', path, { serverId: null })).json.serverId).toBeNull();
    expect((await owner('POST', '/environments', { projectId: tree.projectId, serverId: foreign.serverId })).status).toBe(404);
    expect((await owner('PATCH', path, { serverId: 'node-1' })).json.error.path).toBe('serverId');
  });

  test('generation is read-only and unknown fields or options are refused with a path', async () => {
    const { t, owner, tree } = setup();
    const path = `/environments/${tree.environmentId}`;
    const cases: [unknown, string][] = [
      [{ generation: 5 }, 'generation'],
      [{ projectId: tree.projectId }, 'projectId'],
      [{ options: { replicas: 3 } }, 'options.replicas'],
      [{ options: { compose: { version: 0 } } }, 'options.compose.version'],
      [{ metadata: 'x' }, 'metadata'],
      [{ description: repeat(10_001) }, 'description'],
    ];
    for (const [body, errorPath] of cases) {
      const res = await owner('PATCH', path, body);
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(errorPath);
    }
    expect(rawRow(t, 'environment', tree.environmentId)!.generation).toBe(0);
  });

  test('delete is refused while services exist; deployments, variables and markers cascade', async () => {
    const { t, owner, tree, projectId } = setup();
    const refused = await owner('DELETE', `/environments/${tree.environmentId}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('has_dependents');
    expect(refused.json.error.message).toContain('services');

    const doomed = (await owner('POST', '/environments', { projectId, name: 'doomed' })).json.id;
    t.db.insert(deployment).values({ environmentId: doomed, kind: 'deploy', desiredGeneration: 1 }).run();
    t.db.insert(variable).values({ environmentId: doomed, key: 'A' }).run();
    const label = t.db.insert(tag).values({ organizationId: tree.organizationId, name: 'x' }).returning().get();
    t.db.insert(marker).values({ tagId: label.id, environmentId: doomed }).run();
    expect((await owner('DELETE', `/environments/${doomed}`)).status).toBe(204);
    expect(t.db.select().from(deployment).all()).toHaveLength(0);
    expect(t.db.select().from(variable).where(eq(variable.environmentId, doomed)).all()).toHaveLength(0);
    expect(t.db.select().from(marker).all()).toHaveLength(0);
  });

  test("another organization's environment answers 404 and stays unchanged", async () => {
    const { t, owner, foreign } = setup();
    const before = rawRow(t, 'environment', foreign.environmentId);
    expect((await owner('GET', `/environments/${foreign.environmentId}`)).status).toBe(404);
    expect((await owner('PATCH', `/environments/${foreign.environmentId}`, { name: 'mine' })).status).toBe(404);
    expect((await owner('DELETE', `/environments/${foreign.environmentId}`)).status).toBe(404);
    expect((await owner('GET', `/environments?projectId=${foreign.projectId}`)).status).toBe(404);
    expect((await owner('POST', '/environments', { projectId: foreign.projectId, name: 'sneaky' })).status).toBe(404);
    expect(rawRow(t, 'environment', foreign.environmentId)).toEqual(before);
    expect(t.db.select().from(environment).where(eq(environment.name, 'sneaky')).all()).toHaveLength(0);
  });
});
