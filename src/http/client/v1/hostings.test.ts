import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { hosting, hostname, ip, tls, variable } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedService, seedTenants } from '../../../../test/seed.ts';

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { serviceId } = tenants.tree;
  return { t, ...tenants, serviceId, owner: clientAs(t, tenants.owner), admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member) };
}

type TestApp = ReturnType<typeof createTestApp>;
const mirrorOf = (t: TestApp, hostingId: string) =>
  t.db.select().from(hostname).where(eq(hostname.hostingId, hostingId)).all().map((row) => row.hostname);
const addIp = (t: TestApp, organizationId: string, scope: 'public' | 'local' = 'public', address = '203.0.113.7') =>
  t.db.insert(ip).values({ organizationId, address, scope }).returning().get().id;
const addTls = (t: TestApp, organizationId: string) =>
  t.db.insert(tls).values({ organizationId, name: 'cert', certificate: 'PEM', privateKey: 'pnsecret.v1.k.payload' }).returning().get().id;

describe('hostings', () => {
  test('create, read, list, change and delete, with the hostname mirror kept in step', async () => {
    const { t, admin, member, serviceId, tree } = setup();
    const options = { hostnames: ['Shop.example.com', 'www.shop.example.com'], pathPrefix: '/', targetPort: 8080, protocol: 'http', bind: 'public' };
    const created = await admin('POST', '/hostings', { serviceId, name: 'shop', options });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ serviceId, name: 'shop', protocol: 'http', options, tlsId: null, ipId: null });
    expect(mirrorOf(t, created.json.id)).toEqual(['Shop.example.com', 'www.shop.example.com']);
    expect((await member('GET', `/hostings/${created.json.id}`)).json.name).toBe('shop');
    expect(await collectPages(member, `/hostings?serviceId=${serviceId}`, 1)).toEqual([tree.hostingId, created.json.id]);

    backdate(t, 'hosting', created.json.id);
    const changed = await admin('PATCH', `/hostings/${created.json.id}`, { options: { hostnames: ['api.example.com'], protocol: 'tcp', targetPort: 5432 } });
    expect(changed.json).toMatchObject({ protocol: 'tcp', name: 'shop' });
    expect(Date.parse(changed.json.updatedAt)).toBeGreaterThan(0);
    expect(mirrorOf(t, created.json.id)).toEqual(['api.example.com']);
    expect((await admin('PATCH', `/hostings/${created.json.id}`, { options: null })).json.protocol).toBeNull();
    expect(mirrorOf(t, created.json.id)).toEqual([]);

    t.db.insert(variable).values({ hostingId: created.json.id, key: 'A' }).run();
    await admin('PATCH', `/hostings/${created.json.id}`, { options: { hostnames: ['gone.example.com'] } });
    expect((await admin('DELETE', `/hostings/${created.json.id}`)).status).toBe(204);
    expect(t.db.select().from(hostname).all()).toHaveLength(0);
    expect(t.db.select().from(variable).where(eq(variable.hostingId, created.json.id)).all()).toHaveLength(0);
  });

  test('a hostname routes to one hosting per organization, ignoring case and path prefix', async () => {
    const { t, owner, serviceId, tree, stranger, foreign } = setup();
    const first = await owner('POST', '/hostings', { serviceId, options: { hostnames: ['shop.example.com'], pathPrefix: '/api' } });
    const otherService = seedService(t, tree.environmentId);
    const clash = await owner('POST', '/hostings', { serviceId: otherService, options: { hostnames: ['a.example.com', 'SHOP.example.COM'], pathPrefix: '/web' } });
    expect(clash.status).toBe(409);
    expect(clash.json.error).toMatchObject({ code: 'hostname_in_use', path: 'options.hostnames.1' });
    expect(t.db.select().from(hosting).where(eq(hosting.serviceId, otherService)).all()).toHaveLength(0);

    const second = (await owner('POST', '/hostings', { serviceId: otherService, options: { hostnames: ['b.example.com'] } })).json.id;
    expect((await owner('PATCH', `/hostings/${second}`, { options: { hostnames: ['shop.example.com'] } })).status).toBe(409);
    expect(mirrorOf(t, second)).toEqual(['b.example.com']);
    expect((await owner('PATCH', `/hostings/${first.json.id}`, { options: { hostnames: ['Shop.Example.com'] } })).status).toBe(200);

    const twice = await owner('POST', '/hostings', { serviceId, options: { hostnames: ['c.example.com', 'C.example.com'] } });
    expect(twice.status).toBe(422);
    expect(twice.json.error.path).toBe('options.hostnames.1');

    const theirs = await clientAs(t, stranger)('POST', '/hostings', { serviceId: foreign.serviceId, options: { hostnames: ['shop.example.com'] } });
    expect(theirs.status).toBe(201);
  });

  test('options are validated with a path', async () => {
    const { owner, serviceId } = setup();
    const cases: [unknown, string][] = [
      [{ hostnames: ['under_score.example.com'] }, 'options.hostnames.0'],
      [{ hostnames: ['ok.example.com', '-bad.example.com'] }, 'options.hostnames.1'],
      [{ hostnames: [`${repeat(64)}.example.com`] }, 'options.hostnames.0'],
      [{ hostnames: 'shop.example.com' }, 'options.hostnames'],
      [{ pathPrefix: 'api' }, 'options.pathPrefix'],
      [{ targetPort: 0 }, 'options.targetPort'],
      [{ targetPort: 65536 }, 'options.targetPort'],
      [{ targetPort: 80.5 }, 'options.targetPort'],
      [{ protocol: 'https' }, 'options.protocol'],
      [{ ports: [{ published: 80 }] }, 'options.ports.0.target'],
      [{ ports: [{ published: 80, target: 80, protocol: 'http' }] }, 'options.ports.0.protocol'],
      [{ bind: 'world' }, 'options.bind'],
      [{ proxy: { websocket: 'yes' } }, 'options.proxy.websocket'],
      [{ web: 'static' }, 'options.web'],
      [{ tls: 'sometimes' }, 'options.tls'],
      [{ pathPrefix: '/a*b' }, 'options.pathPrefix'],
    ];
    for (const [options, path] of cases) {
      const res = await owner('POST', '/hostings', { serviceId, options });
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'validation_failed', path });
    }
    const valid = {
      hostnames: ['*.apps.example.com', 'localhost', `${repeat(63)}.example.com`],
      pathPrefix: '/api/v1',
      targetPort: 65535,
      protocol: 'udp',
      ports: [{ published: 1, target: 65535, protocol: 'udp' }, { published: 53, target: 53 }],
      bind: 'datacenter',
      proxy: { websocket: true, compression: false },
      web: { spa: true },
    };
    expect((await owner('POST', '/hostings', { serviceId, options: valid })).json).toMatchObject({ options: valid, protocol: 'udp' });
  });

  test('names are capped at 255 characters', async () => {
    const { owner, serviceId } = setup();
    for (const name of ['x', repeat(255)]) expect((await owner('POST', '/hostings', { serviceId, name })).status).toBe(201);
    for (const name of ['', repeat(256)]) expect((await owner('POST', '/hostings', { serviceId, name })).json.error.path).toBe('name');
  });

  test('an ipId needs bind public and a public ip of the organization; tlsId a certificate of the organization', async () => {
    const { t, owner, serviceId, tree, foreign } = setup();
    const publicIp = addIp(t, tree.organizationId);
    const noBind = await owner('POST', '/hostings', { serviceId, ipId: publicIp, options: { bind: 'local' } });
    expect(noBind.status).toBe(422);
    expect(noBind.json.error.path).toBe('options.bind');
    expect((await owner('POST', '/hostings', { serviceId, ipId: publicIp })).json.error.path).toBe('options.bind');

    const localIp = addIp(t, tree.organizationId, 'local', '10.0.0.1');
    expect((await owner('POST', '/hostings', { serviceId, ipId: localIp, options: { bind: 'public' } })).json.error.path).toBe('ipId');
    expect((await owner('POST', '/hostings', { serviceId, ipId: addIp(t, foreign.organizationId), options: { bind: 'public' } })).status).toBe(404);
    expect((await owner('POST', '/hostings', { serviceId, tlsId: addTls(t, foreign.organizationId) })).status).toBe(404);

    const certificate = addTls(t, tree.organizationId);
    const pinned = await owner('POST', '/hostings', { serviceId, ipId: publicIp, tlsId: certificate, options: { bind: 'public' } });
    expect(pinned.json).toMatchObject({ ipId: publicIp, tlsId: certificate });
    const unbind = await owner('PATCH', `/hostings/${pinned.json.id}`, { options: { bind: 'datacenter' } });
    expect(unbind.json.error.path).toBe('options.bind');
    expect((await owner('PATCH', `/hostings/${pinned.json.id}`, { ipId: null, options: { bind: 'datacenter' } })).json.ipId).toBeNull();

    // Set null: deleting the certificate or the address clears the reference.
    await owner('PATCH', `/hostings/${pinned.json.id}`, { ipId: publicIp, options: { bind: 'public' } });
    t.db.delete(tls).where(eq(tls.id, certificate)).run();
    t.db.delete(ip).where(eq(ip.id, publicIp)).run();
    expect(rawRow(t, 'hosting', pinned.json.id)).toMatchObject({ tls_id: null, ip_id: null });
  });

  test('reconcile provenance in metadata is neither written nor erased by clients', async () => {
    const { t, owner, tree } = setup();
    const created = await owner('POST', '/hostings', { serviceId: tree.serviceId, metadata: { composeOwned: true, note: 'x' } });
    expect(created.json.metadata).toEqual({ note: 'x' });
    t.db.update(hosting).set({ metadata: { composeOwned: true, composeRoute: 'web' } }).where(eq(hosting.id, tree.hostingId)).run();
    expect((await owner('PATCH', `/hostings/${tree.hostingId}`, { metadata: { note: 'y', composeRoute: 'forged' } })).json.metadata).toEqual({
      note: 'y',
      composeOwned: true,
      composeRoute: 'web',
    });
    expect((await owner('PATCH', `/hostings/${tree.hostingId}`, { metadata: null })).json.metadata).toEqual({ composeOwned: true, composeRoute: 'web' });
  });

  test("another organization's hosting answers 404 and stays unchanged", async () => {
    const { t, owner, foreign } = setup();
    const before = rawRow(t, 'hosting', foreign.hostingId);
    expect((await owner('GET', `/hostings/${foreign.hostingId}`)).status).toBe(404);
    expect((await owner('PATCH', `/hostings/${foreign.hostingId}`, { options: { hostnames: ['x.example.com'] } })).status).toBe(404);
    expect((await owner('DELETE', `/hostings/${foreign.hostingId}`)).status).toBe(404);
    expect((await owner('GET', `/hostings?serviceId=${foreign.serviceId}`)).status).toBe(404);
    expect((await owner('POST', '/hostings', { serviceId: foreign.serviceId, name: 'sneaky' })).status).toBe(404);
    expect(rawRow(t, 'hosting', foreign.hostingId)).toEqual(before);
    expect(t.db.select().from(hostname).all()).toHaveLength(0);
  });
});
