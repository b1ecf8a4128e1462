import { describe, expect, test } from 'bun:test';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { openSecret } from '../../../crypto/index.ts';
import { certificateAuthority, hosting, tls } from '../../../db/schema/index.ts';
import { authorityKeyOwner } from '../../../domain/certificate-authority/service.ts';
import { certificateKeyOwner } from '../../../domain/certificates/service.ts';
import { rsaKey, type ServerCertificateOptions, serverCertificate } from '../../../../test/certificates.ts';
import { clientAs, collectPages } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

const DAY_MS = 86_400_000;

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const now = t.clock.now();
  const issue = (names: string[], extra: Partial<ServerCertificateOptions> = {}) => serverCertificate({ names, now, ...extra });
  return { t, ...tenants, now, issue, admin: clientAs(t, tenants.admin), member: clientAs(t, tenants.member), owner: clientAs(t, tenants.owner) };
}

describe('TLS library', () => {
  test('upload, read, list, rename and delete; the key is sealed and never answered', async () => {
    const { t, admin, member, owner, issue } = setup();
    const organizationId = (await owner('GET', '/organizations')).json.data[0].id;
    const uploaded = issue(['shop.example.test', '*.shop.example.test'], { key: rsaKey() });
    const created = await admin('POST', '/certificates', { organizationId, name: 'shop', certificate: uploaded.chain, privateKey: uploaded.key });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      organizationId,
      name: 'shop',
      certificate: uploaded.chain,
      privateKey: null,
      subject: 'CN=shop.example.test',
      names: ['shop.example.test', '*.shop.example.test'],
      issuer: 'O=Panel tests, CN=Test CA',
      keyType: 'rsa 2048',
      chainLength: 2,
      hostingCount: 0,
    });
    expect(created.json.fingerprint).toBe(new X509Certificate(uploaded.leaf).fingerprint256);
    expect(Date.parse(created.json.notAfter)).toBe(new Date(new X509Certificate(uploaded.leaf).validTo).getTime());

    const row = t.db.select().from(tls).where(eq(tls.id, created.json.id)).get()!;
    expect(row.privateKey.startsWith('pnsecret.v1.')).toBe(true);
    expect(openSecret(t.deps.keyring, row.privateKey, certificateKeyOwner(row.id))).toContain('-----BEGIN PRIVATE KEY-----');

    expect((await member('GET', `/certificates/${created.json.id}`)).json.name).toBe('shop');
    const second = issue(['b.example.test']);
    const other = (await admin('POST', '/certificates', { organizationId, name: 'b', certificate: second.chain, privateKey: second.key })).json.id;
    expect(await collectPages(member, `/certificates?organizationId=${organizationId}`, 1)).toEqual([created.json.id, other]);

    const renamed = await admin('PATCH', `/certificates/${created.json.id}`, { name: 'shop 2026' });
    expect(renamed.json).toMatchObject({ name: 'shop 2026', certificate: uploaded.chain });
    expect(t.db.select().from(tls).where(eq(tls.id, created.json.id)).get()!.privateKey).toBe(row.privateKey);

    expect((await admin('DELETE', `/certificates/${other}`)).status).toBe(204);
    expect((await member('GET', `/certificates/${other}`)).status).toBe(404);
  });

  test('a renewal may keep its key: a new chain alone is checked against the stored key', async () => {
    const { admin, tree, issue } = setup();
    const key = rsaKey();
    const first = issue(['a.example.test'], { key });
    const id = (await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'a', certificate: first.chain, privateKey: first.key })).json.id;
    const renewed = issue(['a.example.test', 'www.a.example.test'], { key });
    const patched = await admin('PATCH', `/certificates/${id}`, { certificate: renewed.chain });
    expect(patched.status).toBe(200);
    expect(patched.json.names).toEqual(['a.example.test', 'www.a.example.test']);

    const foreign = issue(['a.example.test']);
    const refused = await admin('PATCH', `/certificates/${id}`, { certificate: foreign.chain });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ path: 'privateKey', message: 'privateKey does not belong to the first certificate of the chain' });
    const keyOnly = await admin('PATCH', `/certificates/${id}`, { privateKey: foreign.key });
    expect(keyOnly.json.error.path).toBe('privateKey');
    const both = await admin('PATCH', `/certificates/${id}`, { certificate: foreign.chain, privateKey: foreign.key });
    expect(both.status).toBe(200);
  });

  test('mismatched keys, expired or unreadable certificates are refused with a path and nothing is stored', async () => {
    const { t, admin, tree, issue, now } = setup();
    const good = issue(['a.example.test']);
    const stranger = issue(['a.example.test']);
    const expired = issue(['a.example.test'], { notBefore: new Date(now.getTime() - 30 * DAY_MS), notAfter: new Date(now.getTime() - 1000) });
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ certificate: good.chain, privateKey: stranger.key }, 'privateKey', /^privateKey does not belong/],
      [{ certificate: expired.chain, privateKey: expired.key }, 'certificate', /^certificate expired on /],
      [{ certificate: 'not a certificate', privateKey: good.key }, 'certificate', /^certificate must hold at least one/],
      [{ certificate: good.chain, privateKey: 'not a key' }, 'privateKey', /^privateKey must hold exactly one/],
      [{ certificate: good.chain + good.key, privateKey: good.key }, 'certificate', /is a "PRIVATE KEY" block/],
    ];
    for (const [fields, path, message] of cases) {
      const res = await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'x', ...fields });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(path);
      expect(res.json.error.message).toMatch(message);
    }
    expect((await admin('POST', '/certificates', { organizationId: tree.organizationId, name: '', certificate: good.chain, privateKey: good.key })).json.error.path).toBe('name');
    expect((await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'x', certificate: good.chain, privateKey: good.key, extra: 1 })).status).toBe(422);
    expect(t.db.select().from(tls).all()).toHaveLength(0);
  });

  test('deleting a certificate gives its hostings an internal certificate', async () => {
    const { t, admin, tree, issue } = setup();
    const cert = issue(['a.example.test']);
    const id = (await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'a', certificate: cert.chain, privateKey: cert.key })).json.id;
    expect((await admin('PATCH', `/hostings/${tree.hostingId}`, { tlsId: id, options: { hostnames: ['a.example.test'] } })).status).toBe(200);
    expect((await admin('GET', `/certificates/${id}`)).json.hostingCount).toBe(1);
    expect((await admin('DELETE', `/certificates/${id}`)).status).toBe(204);
    expect(t.db.select().from(hosting).where(eq(hosting.id, tree.hostingId)).get()!.tlsId).toBeNull();
  });

  test('404 for another organization', async () => {
    const { t, admin, tree, foreign, issue, stranger } = setup();
    const cert = issue(['a.example.test']);
    const body = { organizationId: tree.organizationId, name: 'a', certificate: cert.chain, privateKey: cert.key };
    const id = (await admin('POST', '/certificates', body)).json.id;
    const theirs = clientAs(t, stranger);
    expect((await theirs('GET', `/certificates/${id}`)).status).toBe(404);
    expect((await theirs('PATCH', `/certificates/${id}`, { name: 'mine' })).status).toBe(404);
    expect((await theirs('DELETE', `/certificates/${id}`)).status).toBe(404);
    expect((await admin('POST', '/certificates', { ...body, organizationId: foreign.organizationId })).status).toBe(404);
    expect((await admin('GET', `/certificates?organizationId=${foreign.organizationId}`)).status).toBe(404);
  });
});

describe('organization CA', () => {
  test('one root per organization, made on first read, its key sealed; the PEM downloads', async () => {
    const { t, member, tree } = setup();
    const first = await member('GET', `/organizations/${tree.organizationId}/certificate-authority`);
    expect(first.status).toBe(200);
    const root = new X509Certificate(first.json.certificate);
    expect(root.ca).toBe(true);
    expect(root.checkIssued(root)).toBe(true);
    expect(first.json).toMatchObject({ organizationId: tree.organizationId, fingerprint: root.fingerprint256 });
    expect(first.json.subject).toMatch(/ Root CA$/);
    expect(Date.parse(first.json.notAfter) - t.clock.now().getTime()).toBeGreaterThan(9 * 365 * DAY_MS);

    const again = await member('GET', `/organizations/${tree.organizationId}/certificate-authority`);
    expect(again.json.fingerprint).toBe(first.json.fingerprint);
    const rows = t.db.select().from(certificateAuthority).all();
    expect(rows).toHaveLength(1);
    const key = openSecret(t.deps.keyring, rows[0]!.privateKey, authorityKeyOwner(rows[0]!.id));
    expect(root.checkPrivateKey(createPrivateKey(key))).toBe(true);

    const download = await member('GET', `/organizations/${tree.organizationId}/certificate-authority/certificate`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/x-pem-file');
    expect(download.headers.get('content-disposition')).toContain('attachment; filename="panel-');
    expect(download.text).toBe(first.json.certificate);
  });

  test('another organization answers 404 and gets no CA made', async () => {
    const { t, member, foreign } = setup();
    expect((await member('GET', `/organizations/${foreign.organizationId}/certificate-authority`)).status).toBe(404);
    expect((await member('GET', `/organizations/${foreign.organizationId}/certificate-authority/certificate`)).status).toBe(404);
    expect(t.db.select().from(certificateAuthority).all()).toHaveLength(0);
  });
});
