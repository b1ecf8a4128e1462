import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { binding, container, marker, organization, service, tag, tenancy, variable } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedDatabasePrincipal, seedManaged, seedService, seedSystemPrincipal, seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { environmentId } = tenants.tree;
  /** A service with nothing hanging off it (the seeded one has a hosting). */
  const bare = seedService(t, environmentId);
  return { t, ...tenants, environmentId, bare, owner: clientAs(t, tenants.owner), admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member) };
}

describe('services', () => {
  test('read, list, change and delete; the name defaults to the compose key; no client POST', async () => {
    const { t, admin, member, environmentId, bare, tree } = setup();
    const composeKey = rawRow(t, 'service', bare)!.compose_service_name;
    const read = await member('GET', `/services/${bare}`);
    expect(read.json).toMatchObject({ id: bare, environmentId, name: composeKey, composeServiceName: composeKey, metadata: null, options: null });
    expect(await collectPages(member, `/services?environmentId=${environmentId}`, 1)).toEqual([tree.serviceId, bare]);

    backdate(t, 'service', bare);
    const changed = await admin('PATCH', `/services/${bare}`, { name: 'Web front', description: 'nginx', options: { instances: 3 } });
    expect(changed.json).toMatchObject({ name: 'Web front', description: 'nginx', options: { instances: 3 }, composeServiceName: composeKey });
    expect(Date.parse(changed.json.updatedAt)).toBeGreaterThan(0);
    expect((await admin('PATCH', `/services/${bare}`, { name: null })).json.name).toBe(composeKey);

    const posted = await admin('POST', '/services', { environmentId, composeServiceName: 'db' });
    expect(posted.status).toBe(404);
    expect(t.db.select().from(service).where(eq(service.composeServiceName, 'db')).all()).toHaveLength(0);

    expect((await admin('DELETE', `/services/${bare}`)).status).toBe(204);
    expect((await admin('GET', `/services/${bare}`)).status).toBe(404);
  });

  test('names match ^[A-Za-z0-9 ._-]+$ with 1 to 255 characters; the compose key is never client-written', async () => {
    const { owner, bare } = setup();
    for (const name of ['x', repeat(255), 'api v2_1.0-x']) expect((await owner('PATCH', `/services/${bare}`, { name })).json.name).toBe(name);
    for (const body of [{ name: '' }, { name: repeat(256) }, { name: 'a/b' }, { composeServiceName: 'other' }, { environmentId: bare }]) {
      const res = await owner('PATCH', `/services/${bare}`, body);
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(Object.keys(body)[0]);
    }
  });

  test('promoted identity keys are stripped from metadata', async () => {
    const { owner, bare, tree } = setup();
    const metadata = {
      id: 'x',
      environmentId: tree.environmentId,
      composeServiceName: 'db',
      serviceId: bare,
      organizationId: tree.organizationId,
      projectId: tree.projectId,
      team: 'payments',
    };
    expect((await owner('PATCH', `/services/${bare}`, { metadata })).json.metadata).toEqual({ team: 'payments' });
  });

  test('options are validated with a path; deploy hooks need the organization switch', async () => {
    const { t, owner, bare, tree } = setup();
    const cases: [unknown, string][] = [
      [{ instances: 0 }, 'options.instances'],
      [{ instances: 101 }, 'options.instances'],
      [{ instances: 1.5 }, 'options.instances'],
      [{ build: 'Dockerfile' }, 'options.build'],
      [{ operations: [] }, 'options.operations'],
      [{ healthCheck: 1 }, 'options.healthCheck'],
      [{ resources: { cpus: 0 } }, 'options.resources.cpus'],
      [{ resources: { memory: 'lots' } }, 'options.resources.memory'],
      [{ resources: { gpus: 1 } }, 'options.resources.gpus'],
      [{ replicas: 2 }, 'options.replicas'],
      [{ hooks: { preDeploy: 'migrate' } }, 'options.hooks'],
    ];
    for (const [options, path] of cases) {
      const res = await owner('PATCH', `/services/${bare}`, { options });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(path);
    }
    const valid = { instances: 100, build: { context: '.' }, operations: {}, healthCheck: { path: '/up' }, resources: { cpus: 0.5, memory: '512m' } };
    expect((await owner('PATCH', `/services/${bare}`, { options: valid })).json.options).toEqual(valid);
    expect((await owner('PATCH', `/services/${bare}`, { options: { instances: 1, resources: { memory: 1048576 } } })).status).toBe(200);

    t.db.update(organization).set({ isDeployHooksEnabled: true }).where(eq(organization.id, tree.organizationId)).run();
    expect((await owner('PATCH', `/services/${bare}`, { options: { hooks: { preDeploy: 'migrate' } } })).json.options.hooks).toEqual({ preDeploy: 'migrate' });
  });

  test('delete is refused while bindings, tenancies, hostings or containers hold the service', async () => {
    const { t, owner, tree, environmentId } = setup();
    const cluster = seedManaged(t, tree.organizationId);
    const holders: [string, (serviceId: string) => void][] = [
      ['bindings', (serviceId) => t.db.insert(binding).values({ serviceId, principalId: seedDatabasePrincipal(t, cluster).id, databaseName: 'app' }).run()],
      ['tenancies', (serviceId) => t.db.insert(tenancy).values({ serviceId, principalId: seedSystemPrincipal(t, tree.organizationId).id }).run()],
      ['containers', (serviceId) => t.db.insert(container).values({ serviceId, serverId: tree.serverId, containerName: 'c', composeServiceName: 'c' }).run()],
    ];
    const hosted = await owner('DELETE', `/services/${tree.serviceId}`);
    expect(hosted.status).toBe(409);
    expect(hosted.json.error.message).toContain('hostings');
    for (const [kind, hold] of holders) {
      const serviceId = seedService(t, environmentId);
      hold(serviceId);
      const res = await owner('DELETE', `/services/${serviceId}`);
      expect(res.status).toBe(409);
      expect(res.json.error).toMatchObject({ code: 'has_dependents' });
      expect(res.json.error.message).toContain(kind);
      expect(rawRow(t, 'service', serviceId)).not.toBeNull();
    }
  });

  test('deleting a service cascades its variables and markers', async () => {
    const { t, owner, bare, tree } = setup();
    t.db.insert(variable).values({ serviceId: bare, key: 'A' }).run();
    const label = t.db.insert(tag).values({ organizationId: tree.organizationId, name: 'x' }).returning().get();
    t.db.insert(marker).values({ tagId: label.id, serviceId: bare }).run();
    expect((await owner('DELETE', `/services/${bare}`)).status).toBe(204);
    expect(t.db.select().from(variable).where(eq(variable.serviceId, bare)).all()).toHaveLength(0);
    expect(t.db.select().from(marker).all()).toHaveLength(0);
  });

  test("another organization's service answers 404 and stays unchanged", async () => {
    const { t, owner, foreign } = setup();
    const before = rawRow(t, 'service', foreign.serviceId);
    expect((await owner('GET', `/services/${foreign.serviceId}`)).status).toBe(404);
    expect((await owner('PATCH', `/services/${foreign.serviceId}`, { name: 'mine' })).status).toBe(404);
    expect((await owner('DELETE', `/services/${foreign.serviceId}`)).status).toBe(404);
    expect((await owner('GET', `/services?environmentId=${foreign.environmentId}`)).status).toBe(404);
    expect(rawRow(t, 'service', foreign.serviceId)).toEqual(before);
  });

  test('422 for a bad id, naming it', async () => {
    const { member } = setup();
    const badId = await member('GET', '/services/not-a-uuid');
    expect(badId.status).toBe(422);
    expect(badId.json.error.path).toBe('id');
  });
});
