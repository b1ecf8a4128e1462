/**
 * Certificate events from the TLS library: a certificate nearing its end is announced once per
 * end date, in its own organization's feed; a renewal is announced again only when it nears its end.
 * Certificates a server's ingress obtains are announced when issued, renewed or failed.
 */
import { describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { container, deployment, type Event, event } from '../../db/schema/index.ts';
import { rsaKey, serverCertificate } from '../../../test/certificates.ts';
import { clientAs } from '../../../test/client.ts';
import { sayHello } from '../../../test/daemon.ts';
import { createTestApp } from '../../../test/harness.ts';
import { seedTenants } from '../../../test/seed.ts';
import { EXPIRY_WARNING_DAYS } from './certificates.ts';

const DAY_MS = 86_400_000;

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const admin = clientAs(t, tenants.admin);
  const stranger = clientAs(t, tenants.stranger);
  const upload = async (client: typeof admin, organizationId: string, names: string[], days: number, key = rsaKey()) => {
    const now = t.clock.now();
    const made = serverCertificate({ names, now, notAfter: new Date(now.getTime() + days * DAY_MS), key });
    const created = await client('POST', '/certificates', { organizationId, name: names[0], certificate: made.chain, privateKey: made.key });
    expect(created.status, created.text).toBe(201);
    return { id: created.json.id as string, key };
  };
  const expiring = (organizationId: string): Event[] =>
    t.db.select().from(event).where(and(eq(event.organizationId, organizationId), eq(event.kind, 'certificate.expiring'))).orderBy(event.id).all();
  return { t, ...tenants, admin, stranger, upload, expiring };
}

describe('expiring library certificates', () => {
  test('one warning per certificate within the window, in its own organization, with its names and end', async () => {
    const { t, admin, stranger, tree, foreign, upload, expiring } = setup();
    const soon = await upload(admin, tree.organizationId, ['shop.example.test', 'www.shop.example.test'], 10);
    await upload(admin, tree.organizationId, ['later.example.test'], 60);
    await upload(stranger, foreign.organizationId, ['theirs.example.test'], 5);
    const live: Event[] = [];
    t.hub.observe.eventFeed.add(tree.organizationId, (row) => void live.push(row));

    t.hub.observe.checkCertificates();
    const [warning, ...more] = expiring(tree.organizationId);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({
      severity: 'warning',
      message: expect.stringMatching(/^Certificate for shop\.example\.test, www\.shop\.example\.test expires 2026-01-11T/),
      data: { tlsId: soon.id, hostnames: ['shop.example.test', 'www.shop.example.test'], expiresAt: expect.stringMatching(/^2026-01-11T/) },
    });
    expect(live.map((row) => row.id)).toEqual([warning!.id]);
    expect(expiring(foreign.organizationId)).toHaveLength(1);

    // The hourly sweep runs again: nothing new until another certificate enters the window.
    t.hub.observe.checkCertificates();
    expect(expiring(tree.organizationId)).toHaveLength(1);
    t.clock.advance((60 - EXPIRY_WARNING_DAYS + 1) * DAY_MS);
    t.hub.observe.checkCertificates();
    expect(expiring(tree.organizationId).map((row) => row.data?.hostnames)).toEqual([['shop.example.test', 'www.shop.example.test'], ['later.example.test']]);
  });

  test('a renewed certificate is announced again only when its new end nears', async () => {
    const { t, admin, tree, upload, expiring } = setup();
    const { id, key } = await upload(admin, tree.organizationId, ['a.example.test'], 7);
    t.hub.observe.checkCertificates();
    expect(expiring(tree.organizationId)).toHaveLength(1);

    const now = t.clock.now();
    const renewed = serverCertificate({ names: ['a.example.test'], now, notAfter: new Date(now.getTime() + 90 * DAY_MS), key });
    expect((await admin('PATCH', `/certificates/${id}`, { certificate: renewed.chain })).status).toBe(200);
    t.hub.observe.checkCertificates();
    expect(expiring(tree.organizationId)).toHaveLength(1);

    t.clock.advance((90 - EXPIRY_WARNING_DAYS + 1) * DAY_MS);
    t.hub.observe.checkCertificates();
    expect(expiring(tree.organizationId).map((row) => row.data?.expiresAt)).toEqual([expect.stringMatching(/^2026-01-08T/), expect.stringMatching(/^2026-04-01T/)]);
  });
});

describe('certificates the ingress reports', () => {
  test('issued, renewed and failed each announced once, in the organization of the hosting', async () => {
    const { t, admin, tree } = setup();
    t.db.insert(container).values({ serviceId: tree.serviceId, serverId: tree.serverId, containerName: 'web-1', composeServiceName: 'web', ordinal: 1 }).run();
    const hostingId = (await admin('POST', '/hostings', { serviceId: tree.serviceId, options: { hostnames: ['shop.example.test'], tls: 'auto' } })).json.id;
    const connection = t.hub.open({ send() {}, close() {} }, { listener: 'tcp', serverId: tree.serverId });
    sayHello(t, connection, { type: 'hello', hostname: 'h1', machineId: 'm1', version: '1', docker: { version: null, composeVersion: null } });
    t.db.update(deployment).set({ status: 'succeeded' }).where(eq(deployment.kind, 'deploy')).run();
    const certificateEvents = () =>
      t.db.select().from(event).where(eq(event.organizationId, tree.organizationId)).orderBy(event.id).all().filter((row) => row.kind.startsWith('certificate.'));
    const report = (state: { status: string; error?: string; days?: number }) =>
      t.hub.receive(
        connection,
        JSON.stringify({
          type: 'ingress',
          routes: [{ hostingId, upstreams: 1, containers: 1, problem: null }],
          certificates: [
            {
              hostingId,
              hostname: 'shop.example.test',
              source: 'acme',
              status: state.status,
              error: state.error ?? null,
              issuer: state.status === 'issued' ? 'CN=Pebble Intermediate' : null,
              notAfter: state.days === undefined ? null : t.clock.now().getTime() + state.days * DAY_MS,
            },
          ],
        }),
      );

    report({ status: 'pending' });
    expect(certificateEvents()).toEqual([]);
    report({ status: 'failed', error: 'urn:ietf:params:acme:error:dns: no such host' });
    report({ status: 'failed', error: 'urn:ietf:params:acme:error:dns: no such host' });
    report({ status: 'issued', days: 90 });
    report({ status: 'issued', days: 90 });
    report({ status: 'issued', days: 150 });
    expect(certificateEvents().map((row) => [row.kind, row.severity, row.serverId, row.data?.hostnames])).toEqual([
      ['certificate.failed', 'error', tree.serverId, ['shop.example.test']],
      ['certificate.issued', 'info', tree.serverId, ['shop.example.test']],
      ['certificate.renewed', 'info', tree.serverId, ['shop.example.test']],
    ]);
    expect(certificateEvents()[0]!.message).toBe('Certificate for shop.example.test could not be obtained: urn:ietf:params:acme:error:dns: no such host');
  });
});
