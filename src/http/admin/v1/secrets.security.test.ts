import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { parseKeyRing } from '../../../crypto/keyring.ts';
import { openSecret, sealSecret } from '../../../crypto/secret.ts';
import { variable } from '../../../db/schema/index.ts';
import { newId } from '../../../lib/ids.ts';
import { createTestApp, TEST_KEY_RING } from '../../../../test/harness.ts';
import { addMember, createOwner, tokenFor } from '../../../../test/identity.ts';

const OLD_KEY = `old1:${Buffer.alloc(32, 11).toString('base64')}`;
const PATH = '/api/admin/v1/secrets/reencrypt';

/** An app whose ring is rotated (current test1, previous old1) holding secrets sealed under old1. */
function rotatedApp(count = 3) {
  const t = createTestApp({ secrets: `${TEST_KEY_RING},${OLD_KEY}` });
  const superadmin = createOwner(t, { isSuperadmin: true });
  const oldRing = parseKeyRing(OLD_KEY);
  const ids = Array.from({ length: count }, (_, i) => {
    const id = newId();
    const value = sealSecret(oldRing, `plain-${i}`, { table: 'variable', column: 'value', id });
    t.db.insert(variable).values({ id, organizationId: superadmin.organizationId, key: `SECRET_${i}`, isSecret: true, value }).run();
    return id;
  });
  return { t, superadmin, ids };
}

describe('POST /api/admin/v1/secrets/reencrypt', () => {
  test('a superadmin re-seals every secret under the current key and gets counts per key id', async () => {
    const { t, superadmin, ids } = rotatedApp();
    const res = await t.request('POST', PATH, undefined, superadmin.headers);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ currentKeyId: 'test1', before: { old1: 3 }, after: { test1: 3 }, resealed: 3, failed: 0 });
    ids.forEach((id, i) => {
      const row = t.db.select().from(variable).where(eq(variable.id, id)).get()!;
      expect(openSecret(parseKeyRing(TEST_KEY_RING), row.value, { table: 'variable', column: 'value', id })).toBe(`plain-${i}`);
    });
    expect(res.text).not.toContain('plain-');
  });

  test('is idempotent: a second call re-seals nothing', async () => {
    const { t, superadmin } = rotatedApp();
    await t.request('POST', PATH, undefined, superadmin.headers);
    const again = await t.request('POST', PATH, undefined, superadmin.headers);
    expect(again.json).toMatchObject({ before: { test1: 3 }, after: { test1: 3 }, resealed: 0 });
  });

  test('anonymous callers get 401 and nothing changes', async () => {
    const { t, ids } = rotatedApp(1);
    const before = t.db.select().from(variable).where(eq(variable.id, ids[0]!)).get()!.value;
    const res = await t.request('POST', PATH);
    expect(res.status).toBe(401);
    expect(t.db.select().from(variable).where(eq(variable.id, ids[0]!)).get()!.value).toBe(before);
  });

  test('an organization owner who is not a superadmin, and any API token, get 403', async () => {
    const { t, superadmin } = rotatedApp(1);
    const owner = createOwner(t);
    expect((await t.request('POST', PATH, undefined, owner.headers)).status).toBe(403);
    const admin = addMember(t, superadmin.organizationId, 'admin');
    expect((await t.request('POST', PATH, undefined, admin.headers)).status).toBe(403);
    expect((await t.request('POST', PATH, undefined, tokenFor(t, superadmin, 'owner'))).status).toBe(403);
  });

  test('a superadmin cookie from a foreign Origin is refused', async () => {
    const { t, superadmin } = rotatedApp(1);
    const res = await t.request('POST', PATH, undefined, { ...superadmin.headers, origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(t.db.select().from(variable).all()[0]!.value.startsWith('pnsecret.v1.old1.')).toBe(true);
  });
});
