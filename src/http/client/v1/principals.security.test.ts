import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { EnvelopeError, openSecret, parseKeyRing, sealSecret, secretKeyId } from '../../../crypto/index.ts';
import { principal, variable } from '../../../db/schema/index.ts';
import { principalPasswordOwner, variableValueOwner } from '../../../domain/variables/secrets.ts';
import { newId } from '../../../lib/ids.ts';
import { createTestApp, TEST_KEY_RING } from '../../../../test/harness.ts';
import { seedManaged, seedTenants } from '../../../../test/seed.ts';

const URL = '/api/client/v1/principals';
const PASSWORD = 'c0rrect-Horse:battery@staple';

function setup(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const t = createTestApp(overrides);
  const tenants = seedTenants(t);
  const cluster = seedManaged(t, tenants.owner.organizationId);
  const call = (method: string, path: string, body?: unknown) => t.request(method, path, body, tenants.owner.headers);
  const createUser = (body: Record<string, unknown> = {}) =>
    call('POST', URL, { organizationId: tenants.owner.organizationId, kind: 'database', provider: 'postgres', username: 'shop', managedId: cluster.id, ...body });
  const stored = (id: string) => t.db.select().from(principal).where(eq(principal.id, id)).get()!;
  return { t, ...tenants, cluster, call, createUser, stored };
}

describe('principal passwords are write-only', () => {
  test('every answer has password null and hasPassword; the row holds a pnsecret sealed for itself', async () => {
    const { t, owner, cluster, call, createUser, stored } = setup();
    const created = await createUser({ password: PASSWORD });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ password: null, hasPassword: true });
    const answers = [
      created,
      await call('GET', `${URL}/${created.json.id}`),
      await call('GET', `${URL}?organizationId=${owner.organizationId}`),
      await call('GET', `${URL}?managedId=${cluster.id}`),
      await call('PATCH', `${URL}/${created.json.id}`, { metadata: { databases: ['app'] } }),
    ];
    for (const answer of answers) expect(answer.text).not.toContain(PASSWORD);
    const envelope = stored(created.json.id).password!;
    expect(envelope).toMatch(/^pnsecret\.v1\.test1\./);
    expect(openSecret(t.deps.keyring, envelope, principalPasswordOwner(created.json.id))).toBe(PASSWORD);
  });

  test('error answers never echo a password', async () => {
    const { member, t, owner, createUser } = setup();
    const refusals = [
      await createUser({ password: PASSWORD, generatePassword: true }),
      await createUser({ password: [PASSWORD] }),
      await createUser({ password: PASSWORD.repeat(40) }),
      await createUser({ password: PASSWORD, username: '9nine' }),
      await t.request('POST', URL, { organizationId: owner.organizationId, kind: 'system', username: 'www', password: PASSWORD }, member.headers),
    ];
    expect(refusals.map((answer) => answer.status)).toEqual([422, 422, 422, 422, 403]);
    expect(refusals[0]!.json.error.path).toBe('password');
    for (const answer of refusals) expect(answer.text).not.toContain(PASSWORD);
  });

  test('generatePassword answers the password once, by the write that made it', async () => {
    const { t, call, createUser, stored } = setup();
    const created = await createUser({ generatePassword: true });
    const generated: string = created.json.generatedPassword;
    expect(generated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(openSecret(t.deps.keyring, stored(created.json.id).password!, principalPasswordOwner(created.json.id))).toBe(generated);
    const read = await call('GET', `${URL}/${created.json.id}`);
    expect(read.text).not.toContain(generated);
    expect(read.json.generatedPassword).toBeUndefined();
    const rotated = await call('PATCH', `${URL}/${created.json.id}`, { generatePassword: true });
    expect(rotated.json.generatedPassword).not.toBe(generated);
    expect(openSecret(t.deps.keyring, stored(created.json.id).password!, principalPasswordOwner(created.json.id))).toBe(rotated.json.generatedPassword);
  });

  test('a password envelope copied into another principal, or into a variable, does not open there', async () => {
    const { t, createUser, stored } = setup();
    const a = await createUser({ password: PASSWORD });
    const b = await createUser({ username: 'other', password: 'x' });
    const envelope = stored(a.json.id).password!;
    t.db.update(principal).set({ password: envelope }).where(eq(principal.id, b.json.id)).run();
    expect(() => openSecret(t.deps.keyring, envelope, principalPasswordOwner(b.json.id))).toThrow(EnvelopeError);
    expect(() => openSecret(t.deps.keyring, envelope, variableValueOwner(a.json.id))).toThrow(EnvelopeError);
  });
});

describe('a password change reaches the bound services', () => {
  async function boundUser() {
    const ctx = setup();
    const user = await ctx.createUser({ password: PASSWORD });
    await ctx.call('POST', '/api/client/v1/bindings', { principalId: user.json.id, serviceId: ctx.tree.serviceId, databaseName: 'app' });
    const secrets = () =>
      Object.fromEntries(
        ctx.t.db
          .select()
          .from(variable)
          .where(eq(variable.isSecret, true))
          .all()
          .map((row) => [row.key, openSecret(ctx.t.deps.keyring, row.value, variableValueOwner(row.id))]),
      );
    return { ...ctx, userId: user.json.id as string, secrets };
  }

  test('a new password re-seals the binding variables', async () => {
    const { call, userId, secrets } = await boundUser();
    expect(secrets().PGPASSWORD).toBe(PASSWORD);
    expect((await call('PATCH', `${URL}/${userId}`, { password: 'n3w pass' })).status).toBe(200);
    expect(secrets()).toEqual({ DATABASE_PASSWORD: 'n3w pass', PGPASSWORD: 'n3w pass', DATABASE_URL: 'postgres://shop:n3w%20pass@db.internal:5432/app' });
  });

  test('clearing the password empties the variables and drops it from the URL', async () => {
    const { call, userId, secrets } = await boundUser();
    const cleared = await call('PATCH', `${URL}/${userId}`, { password: null });
    expect(cleared.json.hasPassword).toBe(false);
    expect(secrets()).toEqual({ DATABASE_PASSWORD: '', PGPASSWORD: '', DATABASE_URL: 'postgres://shop@db.internal:5432/app' });
  });
});

describe('key rotation: passwords are re-sealed lazily on write', () => {
  test('a PATCH without a new password re-seals an old-key envelope under the current key', async () => {
    const { t, owner, call, stored } = setup({ secrets: `k2:${Buffer.alloc(32, 9).toString('base64')},${TEST_KEY_RING}` });
    const id = newId();
    const old = sealSecret(parseKeyRing(TEST_KEY_RING), PASSWORD, principalPasswordOwner(id));
    t.db.insert(principal).values({ id, organizationId: owner.organizationId, kind: 'system', provider: 'server', username: 'www', appliedUsername: 'www', password: old }).run();
    expect((await call('PATCH', `${URL}/${id}`, { options: { shell: '/bin/sh' } })).status).toBe(200);
    expect(secretKeyId(stored(id).password!)).toBe('k2');
    expect(openSecret(t.deps.keyring, stored(id).password!, principalPasswordOwner(id))).toBe(PASSWORD);
  });
});
