/**
 * tcp/udp hostings: their ports are refused at save when something else on a server their
 * service runs on claims the same address, port and protocol (another hosting, a Compose
 * `ports:` entry, the ingress), and a deploy publishes them at their bind scope's address.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { environment, hosting, project, server, service } from '../../db/schema/index.ts';
import { clientAs } from '../../../test/client.ts';
import { createTestApp } from '../../../test/harness.ts';
import { seedTenants } from '../../../test/seed.ts';

async function setup(compose = 'services:\n  db:\n    image: postgres:16\n  cache:\n    image: redis:7\n    ports: ["127.0.0.1:6379:6379"]\n') {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const admin = clientAs(t, tenants.admin);
  const projectId: string = (await admin('POST', '/projects', { workspaceId: tenants.tree.workspaceId, name: 'data' })).json.id;
  expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml: compose })).status).toBe(200);
  const environmentId = t.db.select().from(environment).where(eq(environment.projectId, projectId)).get()!.id;
  t.db.update(environment).set({ serverId: tenants.tree.serverId }).where(eq(environment.id, environmentId)).run();
  const serviceOf = (key: string) => t.db.select().from(service).where(eq(service.environmentId, environmentId)).all().find((row) => row.composeServiceName === key)!.id;
  const tcp = (serviceId: string, name: string, options: object) => admin('POST', '/hostings', { serviceId, name, options: { protocol: 'tcp', ...options } });
  return { t, ...tenants, admin, environmentId, projectId, db: serviceOf('db'), cache: serviceOf('cache'), tcp };
}

describe('tcp/udp hostings and host ports', () => {
  test('two hostings claiming one address, port and protocol on a server: the second is refused naming the first', async () => {
    const { t, tcp, db, cache } = await setup();
    expect((await tcp(db, 'postgres', { bind: 'local', ports: [{ published: 5432, target: 5432 }] })).status).toBe(201);
    const clash = await tcp(cache, 'other', { bind: 'public', ports: [{ published: 5432, target: 6379 }] });
    expect(clash.status).toBe(422);
    expect(clash.json.error).toMatchObject({ code: 'host_port_conflict', path: 'options.ports.0.published' });
    expect(clash.json.error.message).toContain('tcp 5432 on every address');
    expect(clash.json.error.message).toContain('hosting postgres (5432:5432/tcp)');
    expect(t.db.select().from(hosting).where(eq(hosting.serviceId, cache)).all()).toHaveLength(0);
    // The same port over udp, or on another address, is another claim.
    expect((await tcp(cache, 'udp', { bind: 'public', ports: [{ published: 5432, target: 6379, protocol: 'udp' }] })).status).toBe(201);
  });

  test("a Compose ports: entry and the server's ingress listeners are claims too", async () => {
    const { tcp, db } = await setup();
    const compose = await tcp(db, 'on-redis', { bind: 'local', ports: [{ published: 6379, target: 5432 }] });
    expect(compose.status).toBe(422);
    expect(compose.json.error.code).toBe('host_port_conflict');
    expect(compose.json.error.message).toContain('services.cache.ports "127.0.0.1:6379:6379"');
    const ingress = await tcp(db, 'https', { bind: 'public', ports: [{ published: 443, target: 5432 }] });
    expect(ingress.status).toBe(422);
    expect(ingress.json.error.message).toContain('the ingress of server');
  });

  test("bind datacenter needs the server's private address; a change keeps its own claim", async () => {
    const { t, admin, tcp, db, tree } = await setup();
    const refused = await tcp(db, 'private', { bind: 'datacenter', ports: [{ published: 5432, target: 5432 }] });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: 'validation_failed', path: 'options.bind' });
    expect((await admin('PATCH', `/servers/${tree.serverId}`, { privateAddress: 'not an address' })).status).toBe(422);
    expect((await admin('PATCH', `/servers/${tree.serverId}`, { privateAddress: '10.0.0.5' })).json.privateAddress).toBe('10.0.0.5');
    const created = await tcp(db, 'private', { bind: 'datacenter', ports: [{ published: 5432, target: 5432 }] });
    expect(created.status, created.text).toBe(201);
    // 127.0.0.1:5432 is another address than 10.0.0.5:5432.
    expect((await tcp(db, 'local', { bind: 'local', ports: [{ published: 5432, target: 5432 }] })).status).toBe(201);
    expect((await admin('PATCH', `/hostings/${created.json.id}`, { name: 'renamed' })).status).toBe(200);
    expect(t.db.select().from(server).where(eq(server.id, tree.serverId)).get()!.privateAddress).toBe('10.0.0.5');
  });

  test('a Compose save publishing a port a tcp/udp hosting holds on its server is refused naming both, and changes nothing', async () => {
    const { t, admin, tcp, db, projectId, environmentId } = await setup();
    expect((await tcp(db, 'postgres', { bind: 'public', ports: [{ published: 5432, target: 5432 }] })).status).toBe(201);
    const before = t.db.select().from(project).where(eq(project.id, projectId)).get()!.options;
    const clash = await admin('PUT', `/projects/${projectId}/compose`, { yaml: 'services:\n  db:\n    image: postgres:16\n  cache:\n    image: redis:7\n    ports: ["127.0.0.1:5432:6379"]\n' });
    expect(clash.status, clash.text).toBe(422);
    expect(clash.json.error).toMatchObject({ code: 'host_port_conflict', path: 'services.cache.ports' });
    expect(clash.json.error.message).toContain('services.cache.ports "127.0.0.1:5432:6379" of environment');
    expect(clash.json.error.message).toContain('tcp 5432 on 127.0.0.1');
    expect(clash.json.error.message).toContain('hosting postgres (5432:5432/tcp)');
    expect(t.db.select().from(project).where(eq(project.id, projectId)).get()!.options).toEqual(before);
    // The environment's own layer is held to the same rule; the same port over udp is another claim.
    const overlay = await admin('PUT', `/environments/${environmentId}/compose`, { yaml: 'services:\n  cache:\n    ports: ["5432:6379"]\n' });
    expect(overlay.status).toBe(422);
    expect(overlay.json.error.code).toBe('host_port_conflict');
    expect((await admin('PUT', `/environments/${environmentId}/compose`, { yaml: 'services:\n  cache:\n    ports: ["5432:6379/udp"]\n' })).status).toBe(200);
  });

  test('placement decides where a Compose port claims: another environment on another server is free, on the same server it collides', async () => {
    const { t, admin, tcp, db, projectId, tree } = await setup();
    expect((await tcp(db, 'postgres', { bind: 'public', ports: [{ published: 5432, target: 5432 }] })).status).toBe(201);
    const other = t.db.insert(server).values({ organizationId: tree.organizationId, name: 'other-node' }).returning().get();
    const compose = { compose: { version: 1, data: { services: { db: { ports: ['5432:5432'] } } } } };
    const elsewhere = await admin('POST', '/environments', { projectId, name: 'elsewhere', serverId: other.id, options: compose });
    expect(elsewhere.status, elsewhere.text).toBe(201);
    const here = await admin('POST', '/environments', { projectId, name: 'here', serverId: tree.serverId, options: compose });
    expect(here.status, here.text).toBe(422);
    expect(here.json.error.message).toContain(`on server ${t.db.select().from(server).where(eq(server.id, tree.serverId)).get()!.name}, already claimed by hosting postgres`);
    expect(t.db.select().from(environment).where(eq(environment.projectId, projectId)).all().map((row) => row.name).sort()).toEqual(['elsewhere', 'production']);
    // Moving the environment onto the hosting's server is the same claim.
    const moved = await admin('PATCH', `/environments/${elsewhere.json.id}`, { serverId: tree.serverId });
    expect(moved.status).toBe(422);
    expect(moved.json.error.code).toBe('host_port_conflict');
    expect(t.db.select().from(environment).where(eq(environment.id, elsewhere.json.id)).get()!.serverId).toBe(other.id);
  });

  test("the ingress's 80 and 443 are claims only on a server that runs an ingress or whose hostings bring one", async () => {
    // A server without hostings keeps its 80 and 443 for Compose.
    const { admin, tcp, db, cache, projectId } = await setup('services:\n  db:\n    image: postgres:16\n  cache:\n    image: redis:7\n    ports: ["80:6379", "443:6379"]\n');
    // A hosting would bring the ingress there: refused naming the Compose port.
    const web = await admin('POST', '/hostings', { serviceId: db, name: 'site', options: { hostnames: ['site.example.test'] } });
    expect(web.status, web.text).toBe(422);
    expect(web.json.error.code).toBe('host_port_conflict');
    expect(web.json.error.message).toContain('hosting site brings an ingress to server');
    expect(web.json.error.message).toContain('services.cache.ports "80:6379"');
    // Without them, the hosting is accepted; then a Compose save taking 443 back is refused.
    expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml: 'services:\n  db:\n    image: postgres:16\n  cache:\n    image: redis:7\n' })).status).toBe(200);
    expect((await tcp(cache, 'redis', { bind: 'local', ports: [{ published: 6379, target: 6379 }] })).status).toBe(201);
    const again = await admin('PUT', `/projects/${projectId}/compose`, { yaml: 'services:\n  db:\n    image: postgres:16\n    ports: ["443:5432"]\n  cache:\n    image: redis:7\n' });
    expect(again.status).toBe(422);
    expect(again.json.error.message).toContain('services.db.ports "443:5432"');
    expect(again.json.error.message).toContain('the ingress of server');
  });

  test("a change of the server's private address re-checks the hostings that bind datacenter there", async () => {
    const { t, admin, tcp, db, projectId, tree } = await setup();
    expect((await admin('PATCH', `/servers/${tree.serverId}`, { privateAddress: '10.0.0.5' })).status).toBe(200);
    expect((await tcp(db, 'private', { bind: 'datacenter', ports: [{ published: 5432, target: 5432 }] })).status).toBe(201);
    // Another environment on the server publishes 10.0.0.6:5432.
    const compose = { compose: { version: 1, data: { services: { cache: { ports: ['10.0.0.6:5432:6379'] } } } } };
    expect((await admin('POST', '/environments', { projectId, name: 'other', serverId: tree.serverId, options: compose })).status).toBe(201);
    const clash = await admin('PATCH', `/servers/${tree.serverId}`, { privateAddress: '10.0.0.6' });
    expect(clash.status).toBe(422);
    expect(clash.json.error).toMatchObject({ code: 'host_port_conflict', path: 'privateAddress' });
    expect(clash.json.error.message).toContain('at 10.0.0.6, hosting private would publish tcp 5432 on 10.0.0.6');
    expect(clash.json.error.message).toContain('services.cache.ports "10.0.0.6:5432:6379" of environment other');
    const cleared = await admin('PATCH', `/servers/${tree.serverId}`, { privateAddress: null });
    expect(cleared.status).toBe(409);
    expect(cleared.json.error.code).toBe('has_dependents');
    expect(cleared.json.error.message).toContain('(private)');
    expect(t.db.select().from(server).where(eq(server.id, tree.serverId)).get()!.privateAddress).toBe('10.0.0.5');
    // A free address is taken; the deploy preview publishes there.
    expect((await admin('PATCH', `/servers/${tree.serverId}`, { privateAddress: '10.0.0.7' })).json.privateAddress).toBe('10.0.0.7');
  });

  test('a deploy publishes the ports at the bind address of the server', async () => {
    const { admin, tcp, db, environmentId } = await setup();
    expect((await tcp(db, 'postgres', { bind: 'local', ports: [{ published: 5432, target: 5432 }, { published: 5353, target: 53, protocol: 'udp' }] })).status).toBe(201);
    const preview = await admin('GET', `/environments/${environmentId}/deploy-preview`);
    expect(preview.status, preview.text).toBe(200);
    const yaml: string = preview.json.blocks[0].yaml;
    expect(yaml).toMatch(/target: 5432\n\s+published: "5432"\n\s+protocol: tcp\n\s+host_ip: "127.0.0.1"/);
    expect(yaml).toMatch(/target: 53\n\s+published: "5353"\n\s+protocol: udp\n\s+host_ip: "127.0.0.1"/);
  });
});
