import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { tls } from '../../../db/schema/index.ts';
import { serverCertificate } from '../../../../test/certificates.ts';
import { clientAs } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { tokenFor } from '../../../../test/identity.ts';
import { seedTenants } from '../../../../test/seed.ts';

/** The base64 body of a PEM key: what would show if any answer leaked it. */
const keyBody = (pem: string) => pem.split('\n').filter((line) => line && !line.startsWith('-----')).join('');

function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const issue = (names: string[]) => serverCertificate({ names, now: t.clock.now() });
  return { t, ...tenants, issue, admin: clientAs(t, tenants.admin) };
}

describe('TLS library keys', () => {
  test('no answer ever carries the private key, whatever the route or outcome', async () => {
    const { admin, tree, issue } = setup();
    const cert = issue(['a.example.test']);
    const body = keyBody(cert.key);
    const answers = [];
    const created = await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'a', certificate: cert.chain, privateKey: cert.key });
    answers.push(created);
    answers.push(await admin('GET', `/certificates/${created.json.id}`));
    answers.push(await admin('GET', `/certificates?organizationId=${tree.organizationId}`));
    answers.push(await admin('PATCH', `/certificates/${created.json.id}`, { privateKey: cert.key, certificate: cert.chain }));
    const other = issue(['a.example.test']);
    answers.push(await admin('PATCH', `/certificates/${created.json.id}`, { privateKey: other.key }));
    answers.push(await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'b', certificate: other.chain, privateKey: cert.key }));
    // A key that does not parse is refused without being echoed.
    answers.push(await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'c', certificate: cert.chain, privateKey: `-----BEGIN PRIVATE KEY-----\n${body.slice(0, 40)}\n-----END PRIVATE KEY-----\n` }));
    expect(answers.map((answer) => answer.status)).toEqual([201, 200, 200, 200, 422, 422, 422]);
    for (const answer of answers) {
      expect(answer.text).not.toContain(body.slice(0, 40));
      expect(answer.text).not.toContain('PRIVATE KEY');
    }
  });

  test('a sealed key copied into another row does not open there', async () => {
    const { t, admin, tree, issue } = setup();
    const a = issue(['a.example.test']);
    const b = issue(['b.example.test']);
    const first = (await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'a', certificate: a.chain, privateKey: a.key })).json.id;
    const second = (await admin('POST', '/certificates', { organizationId: tree.organizationId, name: 'b', certificate: b.chain, privateKey: b.key })).json.id;
    const sealed = t.db.select().from(tls).where(eq(tls.id, first)).get()!.privateKey;
    t.db.update(tls).set({ privateKey: sealed, certificate: a.chain }).where(eq(tls.id, second)).run();
    const refused = await admin('PATCH', `/certificates/${second}`, { certificate: a.chain });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'secret_unreadable', path: 'privateKey' });
  });

  test('the database refuses a plaintext key', () => {
    const { t, tree, issue } = setup();
    const cert = issue(['a.example.test']);
    expect(() => t.db.insert(tls).values({ organizationId: tree.organizationId, name: 'x', certificate: cert.chain, privateKey: cert.key }).run()).toThrow(/CHECK constraint failed/);
  });

  test('a member-role API token cannot upload', async () => {
    const t = createTestApp();
    const tenants = seedTenants(t);
    const cert = serverCertificate({ names: ['a.example.test'], now: t.clock.now() });
    const body = { organizationId: tenants.tree.organizationId, name: 'a', certificate: cert.chain, privateKey: cert.key };
    const res = await t.request('POST', '/api/client/v1/certificates', body, tokenFor(t, tenants.admin, 'member'));
    expect(res.status).toBe(403);
  });
});
