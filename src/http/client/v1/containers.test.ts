import { describe, expect, test } from 'bun:test';
import { container, server } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { serviceId, serverId } = tenants.tree;
  const base = { serviceId, serverId, containerName: 'shop-web-1', composeServiceName: 'web' };
  return { t, ...tenants, base, owner: clientAs(t, tenants.owner), admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member) };
}

describe('containers', () => {
  test('create, read, list by service and by server, change and delete', async () => {
    const { t, admin, member, base, tree } = setup();
    const created = await admin('POST', '/containers', base);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ ...base, status: 'pending', role: 'service', ordinal: 1, containerId: null, metadata: null, options: null });
    expect((await member('GET', `/containers/${created.json.id}`)).json.containerName).toBe('shop-web-1');

    const second = (await admin('POST', '/containers', { ...base, ordinal: 2 })).json.id;
    const ingress = (await admin('POST', '/containers', { ...base, role: 'ingress', containerName: 'shop-in' })).json.id;
    const elsewhere = t.db.insert(server).values({ organizationId: tree.organizationId, name: 'node-2' }).returning().get().id;
    const moved = (await admin('POST', '/containers', { ...base, serverId: elsewhere, ordinal: 3 })).json.id;
    expect(await collectPages(member, `/containers?serviceId=${tree.serviceId}`, 2)).toEqual([created.json.id, second, ingress, moved]);
    expect(await collectPages(member, `/containers?serverId=${elsewhere}`, 2)).toEqual([moved]);
    expect((await member('GET', '/containers')).json.error.path).toBe('serviceId');

    backdate(t, 'container', created.json.id);
    const changed = await admin('PATCH', `/containers/${created.json.id}`, { metadata: { note: 'canary' }, options: { pinned: true } });
    expect(changed.json).toMatchObject({ metadata: { note: 'canary' }, options: { pinned: true } });
    expect(Date.parse(changed.json.updatedAt)).toBeGreaterThan(0);
    expect((await admin('DELETE', `/containers/${created.json.id}`)).status).toBe(204);
    expect(rawRow(t, 'container', created.json.id)).toBeNull();
  });

  test('identity keys are stripped from metadata and options on POST and PATCH', async () => {
    const { owner, base, tree } = setup();
    const identity = {
      id: 'x',
      serviceId: tree.serviceId,
      serverId: tree.serverId,
      containerId: 'abc',
      status: 'running',
      role: 'panel',
      ordinal: 9,
      composeServiceName: 'db',
      containerName: 'other',
    };
    const created = await owner('POST', '/containers', { ...base, metadata: { ...identity, keep: 1 }, options: { ...identity, limit: 2 } });
    expect(created.json).toMatchObject({ metadata: { keep: 1 }, options: { limit: 2 }, status: 'pending', role: 'service', ordinal: 1 });
    const patched = await owner('PATCH', `/containers/${created.json.id}`, { metadata: identity, options: { ...identity, x: true } });
    expect(patched.json).toMatchObject({ metadata: {}, options: { x: true }, containerId: null, containerName: 'shop-web-1' });
  });

  test('status, the runtime id and placement are never client-written', async () => {
    const { t, owner, base, tree } = setup();
    for (const field of [{ status: 'running' }, { containerId: 'abc' }, { id: tree.serviceId }]) {
      const res = await owner('POST', '/containers', { ...base, ...field });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(Object.keys(field)[0]);
    }
    const created = (await owner('POST', '/containers', base)).json.id;
    for (const field of [{ status: 'exited' }, { serverId: tree.serverId }, { containerName: 'x' }, { ordinal: 2 }]) {
      expect((await owner('PATCH', `/containers/${created}`, field)).json.error.path).toBe(Object.keys(field)[0]);
    }
    expect(rawRow(t, 'container', created)).toMatchObject({ status: 'pending', container_id: null, ordinal: 1 });
  });

  test('role, ordinal and names are validated; an ordinal is unique per service and role', async () => {
    const { owner, base } = setup();
    const cases: [unknown, string][] = [
      [{ ordinal: 0 }, 'ordinal'],
      [{ ordinal: 1.5 }, 'ordinal'],
      [{ role: 'sidecar' }, 'role'],
      [{ role: 'ingress', ordinal: 2 }, 'ordinal'],
      [{ containerName: '' }, 'containerName'],
      [{ containerName: repeat(256) }, 'containerName'],
      [{ composeServiceName: '' }, 'composeServiceName'],
      [{ composeServiceName: repeat(256) }, 'composeServiceName'],
      [{ serviceId: undefined }, 'serviceId'],
    ];
    for (const [fields, path] of cases) {
      const res = await owner('POST', '/containers', { ...base, ...(fields as object) });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(path);
    }
    expect((await owner('POST', '/containers', { ...base, containerName: 'x', composeServiceName: repeat(255) })).status).toBe(201);
    const taken = await owner('POST', '/containers', { ...base, containerName: repeat(255) });
    expect(taken.status).toBe(409);
    expect(taken.json.error).toMatchObject({ code: 'ordinal_in_use', path: 'ordinal' });
    expect((await owner('POST', '/containers', { ...base, role: 'panel' })).status).toBe(201);
  });

  test("another organization's container, service or server answers 404 with nothing changed", async () => {
    const { t, owner, stranger, base, foreign } = setup();
    const theirs = (await clientAs(t, stranger)('POST', '/containers', { ...base, serviceId: foreign.serviceId, serverId: foreign.serverId })).json.id;
    const before = rawRow(t, 'container', theirs);
    expect((await owner('GET', `/containers/${theirs}`)).status).toBe(404);
    expect((await owner('PATCH', `/containers/${theirs}`, { metadata: { x: 1 } })).status).toBe(404);
    expect((await owner('DELETE', `/containers/${theirs}`)).status).toBe(404);
    expect((await owner('GET', `/containers?serviceId=${foreign.serviceId}`)).status).toBe(404);
    expect((await owner('GET', `/containers?serverId=${foreign.serverId}`)).status).toBe(404);
    expect((await owner('POST', '/containers', { ...base, serverId: foreign.serverId })).status).toBe(404);
    expect((await owner('POST', '/containers', { ...base, serviceId: foreign.serviceId })).status).toBe(404);
    expect(rawRow(t, 'container', theirs)).toEqual(before);
    expect(t.db.select().from(container).all()).toHaveLength(1);
  });
});
