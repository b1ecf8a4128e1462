import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { EnvelopeError, openSecret, parseKeyRing, sealSecret, secretKeyId } from '../../../crypto/index.ts';
import { variable } from '../../../db/schema/index.ts';
import { principalPasswordOwner, variableValueOwner } from '../../../domain/variables/secrets.ts';
import { newId } from '../../../lib/ids.ts';
import { createTestApp, TEST_KEY_RING } from '../../../../test/harness.ts';
import { seedDatabasePrincipal, seedManaged, seedTenants } from '../../../../test/seed.ts';

const URL = '/api/client/v1/variables';
const SECRET = 'hunter2-Sup3r$ecret';

function setup(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const t = createTestApp(overrides);
  const tenants = seedTenants(t);
  const call = (method: string, path: string, body?: unknown) => t.request(method, path, body, tenants.owner.headers);
  const stored = (id: string) => t.db.select().from(variable).where(eq(variable.id, id)).get()!;
  return { t, ...tenants, call, stored };
}

describe('secret variables never leave the server', () => {
  test('create, read, list and patch answer value null; the row holds a pnsecret sealed for itself', async () => {
    const { t, tree, call, stored } = setup();
    const created = await call('POST', URL, { serviceId: tree.serviceId, key: 'API_KEY', value: SECRET, isSecret: true });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ value: null, isSecret: true });
    expect(created.json.generatedValue).toBeUndefined();
    const answers = [
      created,
      await call('GET', `${URL}/${created.json.id}`),
      await call('GET', `${URL}?serviceId=${tree.serviceId}`),
      await call('PATCH', `${URL}/${created.json.id}`, { description: 'rotated monthly' }),
      await call('PATCH', `${URL}/${created.json.id}`, { value: `${SECRET}-2` }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200 + (answer === created ? 1 : 0));
      expect(answer.text).not.toContain(SECRET);
    }
    const row = stored(created.json.id);
    expect(row.value).toMatch(/^pnsecret\.v1\.test1\./);
    expect(openSecret(t.deps.keyring, row.value, variableValueOwner(row.id))).toBe(`${SECRET}-2`);
  });

  test('error answers never echo a secret value', async () => {
    const { tree, member, t, call } = setup();
    await call('POST', URL, { serviceId: tree.serviceId, key: 'TAKEN', value: 'x' });
    const refusals = [
      await call('POST', URL, { serviceId: tree.serviceId, key: 'TAKEN', value: SECRET, isSecret: true }),
      await call('POST', URL, { serviceId: tree.serviceId, key: 'BAD-KEY', value: SECRET, isSecret: true }),
      await call('POST', URL, { serviceId: tree.serviceId, key: 'BIG', value: SECRET.repeat(4000), isSecret: true }),
      await call('POST', URL, { serviceId: tree.serviceId, key: 'A', value: SECRET, isSecret: true, generate: true }),
      await call('POST', URL, { serviceId: tree.serviceId, key: 'A', value: [SECRET], isSecret: true }),
      await call('POST', URL, { key: 'A', value: SECRET, isSecret: true }),
      await t.request('POST', URL, { serviceId: tree.serviceId, key: 'A', value: SECRET, isSecret: true }, member.headers),
    ];
    expect(refusals.map((answer) => answer.status)).toEqual([409, 422, 422, 422, 422, 422, 403]);
    for (const answer of refusals) expect(answer.text).not.toContain(SECRET);
  });

  test('generate: a random value is answered once by the write that made it, and never again', async () => {
    const { tree, call, stored, t } = setup();
    const created = await call('POST', URL, { projectId: tree.projectId, key: 'SESSION_KEY', isSecret: true, generate: true });
    expect(created.status).toBe(201);
    const generated: string = created.json.generatedValue;
    expect(generated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(openSecret(t.deps.keyring, stored(created.json.id).value, variableValueOwner(created.json.id))).toBe(generated);
    for (const path of [`${URL}/${created.json.id}`, `${URL}?projectId=${tree.projectId}`]) {
      const answer = await call('GET', path);
      expect(answer.text).not.toContain(generated);
      expect(answer.text).not.toContain('generatedValue');
    }
    const rotated = await call('PATCH', `${URL}/${created.json.id}`, { generate: true });
    expect(rotated.json.generatedValue).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.json.generatedValue).not.toBe(generated);
    expect(openSecret(t.deps.keyring, stored(created.json.id).value, variableValueOwner(created.json.id))).toBe(rotated.json.generatedValue);
  });

  test('generate needs isSecret (422 generate) and excludes value (422 value)', async () => {
    const { tree, call } = setup();
    expect((await call('POST', URL, { projectId: tree.projectId, key: 'A', generate: true })).json.error.path).toBe('generate');
    expect((await call('POST', URL, { projectId: tree.projectId, key: 'A', generate: true, isSecret: true, value: 'v' })).json.error.path).toBe('value');
    const plain = await call('POST', URL, { projectId: tree.projectId, key: 'PLAIN', value: 'v' });
    expect((await call('PATCH', `${URL}/${plain.json.id}`, { generate: true })).json.error.path).toBe('generate');
  });

  test('turning a secret into plaintext needs a new value; turning plaintext secret seals the stored one', async () => {
    const { tree, call, stored, t } = setup();
    const secret = await call('POST', URL, { projectId: tree.projectId, key: 'TOKEN', value: SECRET, isSecret: true });
    const refused = await call('PATCH', `${URL}/${secret.json.id}`, { isSecret: false });
    expect(refused.status).toBe(422);
    expect(refused.json.error.path).toBe('value');
    expect(stored(secret.json.id).isSecret).toBe(true);
    expect((await call('PATCH', `${URL}/${secret.json.id}`, { isSecret: false, value: 'public' })).json).toMatchObject({ isSecret: false, value: 'public' });
    expect(stored(secret.json.id).value).toBe('public');

    const plain = await call('POST', URL, { projectId: tree.projectId, key: 'LATER_SECRET', value: 'was-plain' });
    expect((await call('PATCH', `${URL}/${plain.json.id}`, { isSecret: true })).json).toMatchObject({ isSecret: true, value: null });
    expect(openSecret(t.deps.keyring, stored(plain.json.id).value, variableValueOwner(plain.json.id))).toBe('was-plain');
  });
});

describe('sealed values are bound to their row', () => {
  test('an envelope copied into another variable, or into a principal password, does not open there', async () => {
    const { t, tree, owner, call, stored } = setup();
    const a = await call('POST', URL, { serviceId: tree.serviceId, key: 'A', value: SECRET, isSecret: true });
    const b = await call('POST', URL, { serviceId: tree.serviceId, key: 'B', value: 'other', isSecret: true });
    const envelope = stored(a.json.id).value;
    t.db.update(variable).set({ value: envelope }).where(eq(variable.id, b.json.id)).run();
    expect(() => openSecret(t.deps.keyring, stored(b.json.id).value, variableValueOwner(b.json.id))).toThrow(EnvelopeError);
    const user = seedDatabasePrincipal(t, seedManaged(t, owner.organizationId));
    expect(() => openSecret(t.deps.keyring, envelope, principalPasswordOwner(user.id))).toThrow(EnvelopeError);
    expect(openSecret(t.deps.keyring, envelope, variableValueOwner(a.json.id))).toBe(SECRET);
  });
});

describe('key rotation: secrets are re-sealed lazily on write', () => {
  const NEW_RING = `k2:${Buffer.alloc(32, 9).toString('base64')},${TEST_KEY_RING}`;

  test('a PATCH without a new value re-seals an old-key envelope under the current key', async () => {
    const { t, tree, stored, call } = setup({ secrets: NEW_RING });
    const id = newId();
    const old = sealSecret(parseKeyRing(TEST_KEY_RING), SECRET, variableValueOwner(id));
    t.db.insert(variable).values({ id, serviceId: tree.serviceId, key: 'OLD', value: old, isSecret: true }).run();
    expect((await call('PATCH', `${URL}/${id}`, { description: 'touched' })).status).toBe(200);
    const row = stored(id);
    expect(secretKeyId(row.value)).toBe('k2');
    expect(openSecret(t.deps.keyring, row.value, variableValueOwner(id))).toBe(SECRET);
  });

  test('an envelope whose key left the ring is kept as it is by an unrelated edit', async () => {
    const { t, tree, stored, call } = setup();
    const id = newId();
    const lost = sealSecret(parseKeyRing(`gone:${Buffer.alloc(32, 3).toString('base64')}`), SECRET, variableValueOwner(id));
    t.db.insert(variable).values({ id, serviceId: tree.serviceId, key: 'LOST', value: lost, isSecret: true }).run();
    expect((await call('PATCH', `${URL}/${id}`, { forBuild: true })).status).toBe(200);
    expect(stored(id).value).toBe(lost);
  });
});

describe('binding-owned variables are read-only to clients', () => {
  test('PATCH and DELETE answer 403 forbidden even to the owner, and change nothing; reads hide secrets', async () => {
    const { t, tree, owner, call } = setup();
    const user = seedDatabasePrincipal(t, seedManaged(t, owner.organizationId), { password: SECRET });
    const bound = await call('POST', '/api/client/v1/bindings', { principalId: user.id, serviceId: tree.serviceId, databaseName: 'app' });
    expect(bound.status).toBe(201);
    const rows = t.db.select().from(variable).where(eq(variable.bindingId, bound.json.id)).all();
    expect(rows.length).toBe(11);
    for (const row of rows) {
      const patch = await call('PATCH', `${URL}/${row.id}`, { value: 'hijacked' });
      expect(patch.status).toBe(403);
      expect(patch.json.error.code).toBe('forbidden');
      expect((await call('DELETE', `${URL}/${row.id}`)).status).toBe(403);
    }
    expect(t.db.select().from(variable).where(eq(variable.bindingId, bound.json.id)).all()).toEqual(rows);
    const listed = await call('GET', `${URL}?serviceId=${tree.serviceId}`);
    expect(listed.json.data).toHaveLength(11);
    expect(listed.text).not.toContain(SECRET);
    expect(listed.json.data.find((row: { key: string }) => row.key === 'DATABASE_URL')).toMatchObject({ value: null, isSecret: true, bindingId: bound.json.id });
  });
});
