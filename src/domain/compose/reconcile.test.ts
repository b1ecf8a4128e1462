/**
 * Reconcile through the compose endpoints: service rows and compose-owned hostings follow the
 * documents, refusals leave everything as it was, and the project adopts its repository.
 */
import { describe, expect, test } from 'bun:test';
import { asc, eq } from 'drizzle-orm';
import {
  binding,
  container,
  environment,
  hosting,
  hostname,
  repository,
  service,
  tenancy,
  variable,
} from '../../db/schema/index.ts';
import { clientAs, rawRow } from '../../../test/client.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { seedDatabasePrincipal, seedManaged, seedSystemPrincipal, seedTenants } from '../../../test/seed.ts';

async function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const admin = clientAs(t, tenants.admin);
  const projectId: string = (await admin('POST', '/projects', { workspaceId: tenants.tree.workspaceId, name: 'shop' })).json.id;
  const production = t.db.select().from(environment).where(eq(environment.projectId, projectId)).get()!.id;
  const staging: string = (await admin('POST', '/environments', { projectId, name: 'staging' })).json.id;
  const saveBase = (yaml: string) => admin('PUT', `/projects/${projectId}/compose`, { yaml });
  const saveOverlay = (environmentId: string, yaml: string) => admin('PUT', `/environments/${environmentId}/compose`, { yaml });
  return { t, ...tenants, admin, projectId, production, staging, saveBase, saveOverlay };
}

const servicesOf = (t: TestApp, environmentId: string) =>
  t.db.select().from(service).where(eq(service.environmentId, environmentId)).orderBy(asc(service.id)).all();

const serviceOf = (t: TestApp, environmentId: string, key: string) => servicesOf(t, environmentId).find((row) => row.composeServiceName === key)!;

const hostingsOf = (t: TestApp, serviceId: string) => t.db.select().from(hosting).where(eq(hosting.serviceId, serviceId)).orderBy(asc(hosting.id)).all();

const mirrorOf = (t: TestApp, hostingId: string) =>
  t.db.select().from(hostname).where(eq(hostname.hostingId, hostingId)).all().map((row) => row.hostname).sort();

/** Every row of the tables reconcile writes, to prove a refused save changed nothing. */
const snapshot = (t: TestApp) =>
  ['project', 'environment', 'service', 'hosting', 'hostname', 'variable'].map((table) => t.sqlite.query(`SELECT * FROM "${table}" ORDER BY id`).all());

const TWO = 'services:\n  web:\n    image: nginx\n  worker:\n    image: busybox\n';

describe('reconcile: services', () => {
  test('a base save creates the services of every environment, named after their keys', async () => {
    const { t, saveBase, saveOverlay, production, staging } = await setup();
    expect((await saveBase(TWO)).status).toBe(200);
    for (const environmentId of [production, staging]) {
      expect(servicesOf(t, environmentId).map((row) => [row.composeServiceName, row.name])).toEqual([['web', 'web'], ['worker', 'worker']]);
    }
    expect((await saveOverlay(staging, 'services:\n  debug:\n    image: busybox\n  worker: !reset null\n')).status).toBe(200);
    expect(servicesOf(t, staging).map((row) => row.composeServiceName)).toEqual(['web', 'debug']);
    expect(servicesOf(t, production).map((row) => row.composeServiceName)).toEqual(['web', 'worker']);
  });

  test('a renamed key keeps its row; the name follows unless it was changed', async () => {
    const { t, admin, saveBase, production } = await setup();
    await saveBase(TWO);
    const [web, worker] = servicesOf(t, production);
    t.db.insert(variable).values({ serviceId: web!.id, key: 'KEEP', value: '1' }).run();
    await saveBase('services:\n  frontend:\n    image: nginx\n  worker:\n    image: busybox\n');
    expect(serviceOf(t, production, 'frontend')).toMatchObject({ id: web!.id, name: 'frontend' });
    expect(t.db.select().from(variable).where(eq(variable.serviceId, web!.id)).all()).toHaveLength(1);

    await admin('PATCH', `/services/${worker!.id}`, { name: 'Queue worker' });
    await saveBase('services:\n  frontend:\n    image: nginx\n  jobs:\n    image: busybox\n');
    expect(serviceOf(t, production, 'jobs')).toMatchObject({ id: worker!.id, name: 'Queue worker' });

    // A changed definition is no rename: the old row goes, a new one comes.
    await saveBase('services:\n  frontend:\n    image: nginx\n  queue:\n    image: redis\n');
    expect(serviceOf(t, production, 'queue').id).not.toBe(worker!.id);
    expect(rawRow(t, 'service', worker!.id)).toBeNull();
  });

  test('a removed key removes its row with its variables', async () => {
    const { t, saveBase, production } = await setup();
    await saveBase(TWO);
    const worker = serviceOf(t, production, 'worker');
    t.db.insert(variable).values({ serviceId: worker.id, key: 'GONE' }).run();
    await saveBase('services:\n  web:\n    image: nginx\n');
    expect(servicesOf(t, production).map((row) => row.composeServiceName)).toEqual(['web']);
    expect(t.db.select().from(variable).where(eq(variable.serviceId, worker.id)).all()).toHaveLength(0);
  });

  test('removal is refused while bindings, tenancies, containers or hand-made hostings hold the service; nothing changes', async () => {
    const { t, admin, saveBase, production, tree } = await setup();
    await saveBase(TWO);
    const worker = serviceOf(t, production, 'worker');
    const cluster = seedManaged(t, tree.organizationId);
    const holds: [string, () => { id: string }][] = [
      ['bindings', () => t.db.insert(binding).values({ principalId: seedDatabasePrincipal(t, cluster).id, serviceId: worker.id, databaseName: 'app' }).returning().get()],
      ['tenancies', () => t.db.insert(tenancy).values({ principalId: seedSystemPrincipal(t, tree.organizationId).id, serviceId: worker.id }).returning().get()],
      ['containers', () => t.db.insert(container).values({ serviceId: worker.id, serverId: tree.serverId, containerName: 'c', composeServiceName: 'worker' }).returning().get()],
      ['hand-made hostings', () => t.db.insert(hosting).values({ serviceId: worker.id, name: 'manual' }).returning().get()],
    ];
    for (const [kind, hold] of holds) {
      const row = hold();
      const before = snapshot(t);
      const refused = await saveBase('# worker gone\nservices:\n  web:\n    image: nginx\n');
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe('has_dependents');
      expect(refused.json.error.message).toContain(kind);
      expect(refused.json.error.message).toContain('worker');
      expect(snapshot(t)).toEqual(before);
      t.sqlite.prepare(`DELETE FROM "${kind === 'hand-made hostings' ? 'hosting' : kind.slice(0, -1).replace('tenancie', 'tenancy')}" WHERE id = ?`).run(row.id);
    }
    expect((await admin('GET', `/projects/${tree.projectId}/compose`)).status).toBe(200);
    expect((await saveBase('services:\n  web:\n    image: nginx\n')).status).toBe(200);
  });

  test('an overlay that cannot merge onto the base is refused naming the environment', async () => {
    const { saveBase, saveOverlay, staging } = await setup();
    await saveBase('services:\n  web:\n    image: nginx\n    ports: ["80:80"]\n');
    const res = await saveOverlay(staging, 'services:\n  web:\n    ports: {http: 80}\n');
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'compose_invalid', path: 'services.web.ports' });
    expect(res.json.error.message).toContain('environment "staging"');
  });
});

const ROUTED = (description: string, extra = '') => `services:
  web:
    image: nginx
    x-panel:
      hosting:
        - hostname: shop.example.com
          targetPort: 8080
          description: ${description}
        - protocol: tcp
          port: 2222
          targetPort: 22${extra}
`;

describe('reconcile: compose-owned hostings', () => {
  test('entries become marked rows with their hostname mirror; descriptions survive reconcile', async () => {
    const { t, admin, saveOverlay, production } = await setup();
    expect((await saveOverlay(production, ROUTED('storefront'))).status).toBe(200);
    const web = serviceOf(t, production, 'web');
    const [http, tcp] = hostingsOf(t, web.id);
    expect(http).toMatchObject({
      name: 'shop.example.com',
      description: 'storefront',
      protocol: 'http',
      options: { protocol: 'http', hostnames: ['shop.example.com'], targetPort: 8080 },
      metadata: { composeOwned: true, composeServiceName: 'web', composeRoute: 'http:shop.example.com', composeTlsMode: 'auto' },
    });
    expect(tcp).toMatchObject({ name: 'tcp:2222', protocol: 'tcp', options: { ports: [{ published: 2222, target: 22, protocol: 'tcp' }] } });
    expect(tcp!.metadata).toEqual({ composeOwned: true, composeServiceName: 'web', composeRoute: 'tcp:2222' });
    expect(mirrorOf(t, http!.id)).toEqual(['shop.example.com']);

    await admin('PATCH', `/hostings/${http!.id}`, { description: 'edited in the console', metadata: { team: 'web' } });
    await saveOverlay(production, ROUTED('storefront', '\n          bind: local'));
    expect(rawRow(t, 'hosting', http!.id)).toMatchObject({ description: 'edited in the console' });
    expect(hostingsOf(t, web.id)[0]!.metadata).toMatchObject({ team: 'web', composeOwned: true });
    expect(hostingsOf(t, web.id)[1]!.options).toMatchObject({ bind: 'local' });
    await saveOverlay(production, ROUTED('the shop'));
    expect(hostingsOf(t, web.id).map((row) => row.description)).toEqual(['the shop', null]);
  });

  test('removed entries delete their rows; hand-made hostings are left alone', async () => {
    const { t, admin, saveOverlay, production } = await setup();
    await saveOverlay(production, ROUTED('x'));
    const web = serviceOf(t, production, 'web');
    const manual = (await admin('POST', '/hostings', { serviceId: web.id, name: 'manual', options: { hostnames: ['admin.example.com'] } })).json;
    await saveOverlay(production, 'services:\n  web:\n    image: nginx\n    x-panel:\n      hosting:\n        - hostname: www.example.com\n');
    const rows = hostingsOf(t, web.id);
    expect(rows.map((row) => row.name)).toEqual(['manual', 'www.example.com']);
    expect(rows[0]).toMatchObject({ id: manual.id, metadata: null, options: { hostnames: ['admin.example.com'] } });
    expect(t.db.select().from(hostname).all().map((row) => row.hostname).sort()).toEqual(['admin.example.com', 'www.example.com']);
  });

  test('a hand-made hosting of the same hostname on the service is adopted', async () => {
    const { t, admin, saveOverlay, production } = await setup();
    await saveOverlay(production, 'services:\n  web:\n    image: nginx\n');
    const web = serviceOf(t, production, 'web');
    const manual = (
      await admin('POST', '/hostings', { serviceId: web.id, description: 'made by hand', metadata: { note: 'n' }, options: { hostnames: ['Shop.example.com'], proxy: { gzip: true } } })
    ).json;
    expect((await saveOverlay(production, ROUTED('from compose'))).status).toBe(200);
    const adopted = rawRow(t, 'hosting', manual.id)!;
    expect(JSON.parse(adopted.metadata as string)).toEqual({
      note: 'n',
      composeOwned: true,
      composeServiceName: 'web',
      composeRoute: 'http:shop.example.com',
      composeTlsMode: 'auto',
      composeAdopted: true,
    });
    expect(JSON.parse(adopted.options as string)).toMatchObject({ hostnames: ['shop.example.com'], proxy: { gzip: true } });
    expect(adopted.description).toBe('made by hand');
    expect(hostingsOf(t, web.id)).toHaveLength(2);
    expect(mirrorOf(t, manual.id)).toEqual(['shop.example.com']);
  });

  test('a hostname routed elsewhere is 409 hostname_in_use and nothing changes', async () => {
    const { t, saveBase, saveOverlay, production, staging } = await setup();
    await saveOverlay(production, ROUTED('x'));
    const before = snapshot(t);
    const res = await saveOverlay(staging, ROUTED('again'));
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'hostname_in_use', path: 'services.web.x-panel.hosting.0.hostnames' });
    expect(snapshot(t)).toEqual(before);
    // A base route lands in every environment: with two environments it collides with itself.
    const shared = await saveBase('services:\n  web:\n    image: nginx\n    x-panel:\n      hosting:\n        - hostname: base.example.com\n');
    expect(shared.json.error).toMatchObject({ code: 'hostname_in_use', path: 'services.web.x-panel.hosting.0.hostnames' });
    expect(shared.json.error.message).toContain('environment "staging"');
    const twice = await saveOverlay(production, 'services:\n  web:\n    x-panel:\n      hosting:\n        - hostname: a.example.com\n          hostnames: [A.example.com]\n');
    expect(twice.json.error).toMatchObject({ code: 'compose_invalid', path: 'services.web.x-panel.hosting.0.hostnames' });
  });
});

describe('reconcile: repository adoption', () => {
  test('the first sourceId becomes the repository; another organization`s or a missing one is 422', async () => {
    const { t, admin, saveBase, projectId, tree, foreign } = await setup();
    const mine = t.db.insert(repository).values({ organizationId: tree.organizationId, name: 'shop', url: 'https://git.example.com/shop' }).returning().get();
    const other = t.db.insert(repository).values({ organizationId: tree.organizationId, name: 'other', url: 'https://git.example.com/other' }).returning().get();
    const theirs = t.db.insert(repository).values({ organizationId: foreign.organizationId, name: 'x', url: 'https://git.example.com/x' }).returning().get();
    const sourced = (id: string, second = other.id) =>
      `services:\n  web:\n    image: nginx\n    x-panel: {source: {sourceId: ${id}}}\n  api:\n    image: nginx\n    x-panel: {source: {sourceId: ${second}}}\n`;
    for (const id of [theirs.id, '01940000-0000-7000-8000-000000000000']) {
      const res = await saveBase(sourced(id));
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'compose_invalid', path: 'services.web.x-panel.source.sourceId' });
      expect(rawRow(t, 'project', projectId)!.repository_id).toBeNull();
    }
    expect((await saveBase(sourced(mine.id.toUpperCase()))).status).toBe(200);
    expect((await admin('GET', `/projects/${projectId}`)).json.repositoryId).toBe(mine.id);
    await saveBase(sourced(other.id, mine.id));
    expect(rawRow(t, 'project', projectId)!.repository_id).toBe(mine.id);
  });
});
