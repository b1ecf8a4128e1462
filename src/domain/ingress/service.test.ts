/**
 * The control plane's side of the ingress: which writes queue an apply for which server, what
 * the apply carries (routes, certificates sealed to the daemon, the server's CA) and what the
 * hosting answers show once the daemon reports. Through the client API on a fresh app.
 */
import { describe, expect, test } from 'bun:test';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { generateDaemonKeyPair, openAsDaemon } from '../../crypto/index.ts';
import { permittedNames } from '../../crypto/x509.ts';
import { container, daemonCommand, deployment, environment, hosting, ingressCertificate, ingressRoute, project, server, serverCertificateAuthority } from '../../db/schema/index.ts';
import type { IngressPayload } from '../../contract/ingress.ts';
import { serverCertificate } from '../../../test/certificates.ts';
import { clientAs } from '../../../test/client.ts';
import { sayHello } from '../../../test/daemon.ts';
import { createTestApp } from '../../../test/harness.ts';
import { addMember } from '../../../test/identity.ts';
import { seedService, seedTenants } from '../../../test/seed.ts';
import { INGRESS_COMPONENT } from './platform.ts';

const DAY_MS = 86_400_000;

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const { tree } = tenants;
  const keys = generateDaemonKeyPair();
  t.db.update(server).set({ publicKey: keys.publicKey, daemonKeyId: 'dk1' }).where(eq(server.id, tree.serverId)).run();
  const identity = { serverId: tree.serverId, daemonKeyId: 'dk1', privateKey: keys.privateKey };
  const runsOn = (serviceId: string, serverId = tree.serverId, ordinal = 1) =>
    t.db.insert(container).values({ serviceId, serverId, containerName: `${serviceId}-${ordinal}`, composeServiceName: 'web', ordinal }).run();
  /** The ingress commands queued for a server, oldest first, with their payloads. */
  const ingressCommands = (serverId = tree.serverId) =>
    t.db
      .select({ command: daemonCommand, deployment })
      .from(daemonCommand)
      .innerJoin(deployment, eq(deployment.id, daemonCommand.deploymentId))
      .innerJoin(environment, eq(environment.id, deployment.environmentId))
      .innerJoin(project, eq(project.id, environment.projectId))
      .where(and(eq(daemonCommand.serverId, serverId), eq(project.component, INGRESS_COMPONENT)))
      .orderBy(daemonCommand.id)
      .all()
      .map((row) => ({ ...row, ingress: (row.command.payload as { ingress: IngressPayload }).ingress }));
  return { t, ...tenants, identity, runsOn, ingressCommands, admin: clientAs(t, tenants.admin), owner: clientAs(t, tenants.owner) };
}

describe('refreshing the ingress', () => {
  test('a hosting of a service a server runs queues one apply there, in the platform project', async () => {
    const { t, tree, runsOn, ingressCommands, admin } = setup();
    runsOn(tree.serviceId);
    const created = await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['shop.example.test'], pathPrefix: '/api', targetPort: 8080 } });
    expect(created.status).toBe(201);
    const [queued, ...more] = ingressCommands();
    expect(more).toHaveLength(0);
    expect(queued!.command).toMatchObject({ kind: 'deploy', status: 'queued' });
    expect(queued!.ingress.routes).toEqual([
      { hostingId: created.json.id, serviceId: tree.serviceId, hostnames: ['shop.example.test'], pathPrefix: '/api', targetPort: 8080, bind: 'public', tls: { kind: 'internal' } },
    ]);
    const payload = queued!.command.payload as { compose: string; project: string };
    expect(payload.compose).toContain('network_mode: host');
    expect(payload.compose).toContain('dev.panel.role: ingress');
    const platform = t.db.select().from(project).where(eq(project.component, INGRESS_COMPONENT)).get()!;
    expect(platform).toMatchObject({ organizationId: tree.organizationId, name: 'hosting-ingress' });
    const ingressEnvironment = t.db.select().from(environment).where(eq(environment.projectId, platform.id)).get()!;
    expect(ingressEnvironment.serverId).toBe(tree.serverId);
    expect(payload.project).toBe(`pn-${ingressEnvironment.id}`);
    const slot = t.db.select().from(container).where(eq(container.role, 'ingress')).get()!;
    expect(slot).toMatchObject({ serverId: tree.serverId, ordinal: 1, status: 'pending', containerName: `${slot.serviceId}-in` });
    expect(created.json.live).toMatchObject({ urls: ['https://shop.example.test/api'], servers: [{ serverId: tree.serverId, route: 'pending', upstreams: null }] });
  });

  test('changes before delivery update the queued apply; a change that alters nothing queues nothing', async () => {
    const { tree, runsOn, ingressCommands, admin } = setup();
    runsOn(tree.serviceId);
    const id = (await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['a.example.test'] } })).json.id;
    await admin('PATCH', `/hostings/${id}`, { options: { hostnames: ['a.example.test', 'b.example.test'] } });
    const commands = ingressCommands();
    expect(commands).toHaveLength(1);
    expect(commands[0]!.ingress.routes[0]!.hostnames).toEqual(['a.example.test', 'b.example.test']);
    expect((await admin('PATCH', `/hostings/${id}`, { description: 'only words' })).status).toBe(200);
    expect(ingressCommands()).toHaveLength(1);
  });

  test('hostings of services running elsewhere, or of a destroyed environment, are not routed; servers without a daemon key get nothing', async () => {
    const { t, tree, runsOn, ingressCommands, admin } = setup();
    const elsewhere = t.db.insert(server).values({ organizationId: tree.organizationId, name: 'no-key' }).returning().get();
    const other = seedService(t, tree.environmentId);
    runsOn(tree.serviceId);
    runsOn(other, elsewhere.id);
    await admin('POST', '/hostings', { serviceId: other, options: { hostnames: ['other.example.test'] } });
    expect(ingressCommands(elsewhere.id)).toHaveLength(0);
    expect(ingressCommands()).toHaveLength(0);

    await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['shop.example.test'] } });
    expect(ingressCommands()[0]!.ingress.routes.map((route) => route.hostnames[0])).toEqual(['shop.example.test']);
    t.db.insert(deployment).values({ environmentId: tree.environmentId, serverId: tree.serverId, kind: 'destroy', desiredGeneration: 1, status: 'succeeded' }).run();
    t.db.update(daemonCommand).set({ status: 'delivered' }).run();
    await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['late.example.test'] } });
    expect(ingressCommands().at(-1)!.ingress.routes).toEqual([]);
  });

  test('a pinned library certificate travels with its key sealed to the daemon; the server CA chains to the organization CA', async () => {
    const { t, tree, runsOn, ingressCommands, admin, identity } = setup();
    runsOn(tree.serviceId);
    const uploaded = serverCertificate({ names: ['shop.example.test'], now: t.clock.now() });
    const tlsId = (await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'shop', certificate: uploaded.chain, privateKey: uploaded.key })).json.id;
    await admin('POST', '/hostings', { serviceId: tree.serviceId, tlsId, options: { hostnames: ['shop.example.test'] } });
    const { ingress } = ingressCommands()[0]!;
    expect(ingress.routes[0]!.tls).toEqual({ kind: 'library', certificateId: tlsId });
    expect(ingress.certificates).toHaveLength(1);
    expect(ingress.certificates[0]).toMatchObject({ id: tlsId, certificate: uploaded.chain, names: ['shop.example.test'] });
    expect(ingress.certificates[0]!.key.startsWith(`pndaemon.v1.${tree.serverId}.dk1.`)).toBe(true);
    expect(openAsDaemon(identity, ingress.certificates[0]!.key)).toBe(uploaded.key);

    const root = new X509Certificate((await admin('GET', `/organizations/${tree.organizationId}/certificate-authority`)).json.certificate);
    const serverCa = new X509Certificate(ingress.authority.certificate);
    expect(serverCa.ca).toBe(true);
    expect(serverCa.checkIssued(root) && serverCa.verify(root.publicKey)).toBe(true);
    expect(serverCa.checkPrivateKey(createPrivateKey(openAsDaemon(identity, ingress.authority.key)))).toBe(true);

    // A new chain for the certificate reaches the server; deleting it falls back to internal.
    const renewed = serverCertificate({ names: ['shop.example.test', 'www.shop.example.test'], now: t.clock.now() });
    await admin('PATCH', `/certificates/${tlsId}`, { certificate: renewed.chain, privateKey: renewed.key });
    expect(ingressCommands().at(-1)!.ingress.certificates[0]!.names).toEqual(['shop.example.test', 'www.shop.example.test']);
    await admin('DELETE', `/certificates/${tlsId}`);
    const last = ingressCommands().at(-1)!.ingress;
    expect(last.routes[0]!.tls).toEqual({ kind: 'internal' });
    expect(last.certificates).toEqual([]);
  });

  test('the server CA is kept until 30 days before it expires, then renewed', async () => {
    const { t, tree, runsOn, admin } = setup();
    runsOn(tree.serviceId);
    await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['a.example.test'] } });
    const first = t.db.select().from(serverCertificateAuthority).get()!;
    // Sessions last 7 days: a fresh admin signs in after each jump.
    const later = () => clientAs(t, addMember(t, tree.organizationId, 'admin'));
    const hostingId = t.db.select().from(hosting).get()!.id;
    t.clock.advance(59 * DAY_MS);
    expect((await later()('PATCH', `/hostings/${hostingId}`, { name: 'renamed' })).status).toBe(200);
    expect(t.db.select().from(serverCertificateAuthority).get()!.certificate).toBe(first.certificate);
    t.clock.advance(2 * DAY_MS);
    expect((await later()('PATCH', `/hostings/${hostingId}`, { name: 'again' })).status).toBe(200);
    const renewed = t.db.select().from(serverCertificateAuthority).get()!;
    expect(renewed.certificate).not.toBe(first.certificate);
    expect(renewed.notAfter.getTime()).toBeGreaterThan(first.notAfter.getTime());
  });

  test("the server CA may sign only the hostnames the server serves, and is issued again when they change", async () => {
    const { t, tree, runsOn, admin, ingressCommands } = setup();
    runsOn(tree.serviceId);
    const uploaded = serverCertificate({ names: ['pinned.example.test'], now: t.clock.now() });
    const tlsId = (await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'pinned', certificate: uploaded.chain, privateKey: uploaded.key })).json.id;
    await admin('POST', '/hostings', { serviceId: tree.serviceId, tlsId, options: { hostnames: ['pinned.example.test'] } });
    const constraintOf = () => permittedNames(new X509Certificate(ingressCommands().at(-1)!.ingress.authority.certificate));
    // Library certificates are not the server CA's to sign: it signs nothing valid yet.
    expect(constraintOf()).toEqual({ dns: ['invalid'], ipv4: [] });
    const shop = await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['Shop.example.test', 'www.shop.example.test', '*.apps.example.test'] } });
    expect(shop.status, shop.text).toBe(201);
    expect(constraintOf()).toEqual({ dns: ['apps.example.test', 'shop.example.test'], ipv4: [] });
    const first = t.db.select().from(serverCertificateAuthority).get()!.certificate;
    await admin('PATCH', `/hostings/${shop.json.id}`, { options: { hostnames: ['shop.example.test', '10.0.0.5'] } });
    expect(constraintOf()).toEqual({ dns: ['shop.example.test'], ipv4: ['10.0.0.5'] });
    expect(t.db.select().from(serverCertificateAuthority).get()!.certificate).not.toBe(first);
  });

  test('platform projects are deployed by Panel alone', async () => {
    const { t, tree, runsOn, admin } = setup();
    runsOn(tree.serviceId);
    await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['a.example.test'] } });
    const ingressEnvironment = t.db.select().from(environment).where(eq(environment.serverId, tree.serverId)).all().find((row) => row.id !== tree.environmentId)!;
    for (const action of ['deploy', 'stop', 'destroy']) {
      const refused = await admin('POST', `/environments/${ingressEnvironment.id}/${action}`);
      expect(refused.status).toBe(403);
      expect(refused.json.error.message).toBe('platform projects are managed by the platform');
    }
  });
});

describe('ACME', () => {
  test('owners opt in; tls auto hostings then ask the directory, internal ones stay internal', async () => {
    const { t, tree, runsOn, ingressCommands, admin, owner } = setup();
    runsOn(tree.serviceId);
    await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['auto.example.test'] } });
    await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['int.example.test'], tls: 'internal' } });
    expect((await admin('PATCH', `/organizations/${tree.organizationId}`, { isAcmeEnabled: true })).status).toBe(403);
    expect((await admin('PATCH', `/organizations/${tree.organizationId}`, { acmeEmail: 'ops@example.test' })).status).toBe(403);
    const roots = serverCertificate({ names: ['acme.example.test'], now: t.clock.now() }).ca.pem;
    const enabled = await owner('PATCH', `/organizations/${tree.organizationId}`, {
      isAcmeEnabled: true,
      acmeEmail: 'ops@example.test',
      acmeDirectoryUrl: 'https://acme.example.test/dir',
      acmeDirectoryRoots: `text before\n${roots}`,
    });
    expect(enabled.status).toBe(200);
    expect(enabled.json).toMatchObject({ isAcmeEnabled: true, acmeEmail: 'ops@example.test', acmeDirectoryUrl: 'https://acme.example.test/dir', acmeDirectoryRoots: roots });
    const { ingress } = ingressCommands().at(-1)!;
    expect(ingress.acme).toEqual({ directoryUrl: 'https://acme.example.test/dir', email: 'ops@example.test', directoryRoots: roots });
    expect(Object.fromEntries(ingress.routes.map((route) => [route.hostnames[0], route.tls.kind]))).toEqual({ 'auto.example.test': 'acme', 'int.example.test': 'internal' });

    // Back to Let's Encrypt by clearing the directory; opting out makes auto internal again.
    expect((await owner('PATCH', `/organizations/${tree.organizationId}`, { acmeDirectoryUrl: null })).json.acmeDirectoryUrl).toBe('https://acme-v02.api.letsencrypt.org/directory');
    await owner('PATCH', `/organizations/${tree.organizationId}`, { isAcmeEnabled: false });
    const last = ingressCommands().at(-1)!.ingress;
    expect(last.acme).toBeNull();
    expect(last.routes.every((route) => route.tls.kind === 'internal')).toBe(true);
  });

  test('the directory must be https, the e-mail an address, the roots certificates', async () => {
    const { owner, tree, t } = setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ acmeDirectoryUrl: 'http://acme.example.test/dir' }, 'acmeDirectoryUrl'],
      [{ acmeDirectoryUrl: 'not a url' }, 'acmeDirectoryUrl'],
      [{ acmeEmail: 'nobody' }, 'acmeEmail'],
      [{ acmeDirectoryRoots: 'not pem' }, 'acmeDirectoryRoots'],
      [{ acmeDirectoryRoots: serverCertificate({ names: ['a.test'], now: t.clock.now() }).key }, 'acmeDirectoryRoots'],
    ];
    for (const [body, path] of cases) {
      const res = await owner('PATCH', `/organizations/${tree.organizationId}`, body);
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(path);
    }
  });
});

describe('what the daemon reports', () => {
  test('routes and certificates show on the hosting; hostings of another organization are ignored', async () => {
    const { t, tree, foreign, runsOn, admin } = setup();
    runsOn(tree.serviceId);
    const id = (await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['shop.example.test'], tls: 'internal' } })).json.id;
    const connection = t.hub.open({ send() {}, close() {} }, { listener: 'tcp', serverId: tree.serverId });
    sayHello(t, connection, { type: 'hello', hostname: 'h1', machineId: 'm1', version: '1', docker: { version: null, composeVersion: null } });
    const ingressDeployment = t.db.select().from(deployment).where(eq(deployment.kind, 'deploy')).all().at(-1)!;
    t.db.update(deployment).set({ status: 'succeeded' }).where(eq(deployment.id, ingressDeployment.id)).run();
    const notAfter = t.clock.now().getTime() + 12 * 3_600_000;
    t.hub.receive(
      connection,
      JSON.stringify({
        type: 'ingress',
        routes: [
          { hostingId: id, upstreams: 2, containers: 3, problem: null },
          { hostingId: foreign.hostingId, upstreams: 1, containers: 1, problem: null },
        ],
        certificates: [
          { hostingId: id, hostname: 'shop.example.test', source: 'internal', status: 'issued', error: null, issuer: 'CN=h1 CA', notAfter },
          { hostingId: foreign.hostingId, hostname: 'theirs.example.test', source: 'internal', status: 'issued', error: null, issuer: null, notAfter: null },
        ],
      }),
    );
    const read = await admin('GET', `/hostings/${id}`);
    expect(read.json.live.servers).toEqual([
      expect.objectContaining({ serverId: tree.serverId, route: 'applied', upstreams: 2, containers: 3, problem: null, error: null }),
    ]);
    expect(read.json.live.certificates).toEqual([
      expect.objectContaining({ serverId: tree.serverId, hostname: 'shop.example.test', source: 'internal', status: 'issued', issuer: 'CN=h1 CA', notAfter: new Date(notAfter).toISOString() }),
    ]);
    expect(t.db.select().from(ingressRoute).where(eq(ingressRoute.hostingId, foreign.hostingId)).all()).toEqual([]);
    expect(t.db.select().from(ingressCertificate).where(eq(ingressCertificate.hostingId, foreign.hostingId)).all()).toEqual([]);

    // A refused apply shows on the hosting with Caddy's error.
    t.db.update(deployment).set({ status: 'failed', error: 'ingress_not_applied: Caddy refused the new configuration' }).where(eq(deployment.id, ingressDeployment.id)).run();
    const failed = await admin('GET', `/hostings?serviceId=${tree.serviceId}`);
    expect(failed.json.data.find((row: { id: string }) => row.id === id).live.servers[0]).toMatchObject({ route: 'failed', error: 'ingress_not_applied: Caddy refused the new configuration' });
  });
});
