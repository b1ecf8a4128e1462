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
