import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { parseKeyRing } from '../../crypto/keyring.ts';
import { openSecret, sealSecret, secretKeyId } from '../../crypto/secret.ts';
import { createDb } from '../../db/client.ts';
import { organization, principal, variable } from '../../db/schema/index.ts';
import { newId } from '../../lib/ids.ts';
import { openMigratedDatabase } from '../../../test/db.ts';
import { countSealedByKeyId, keyIdsMissingFromRing, reencryptAll } from './reencrypt.ts';
import { SEALED_COLUMNS } from './sealed-columns.ts';

const key = (n: number) => Buffer.alloc(32, n).toString('base64');
const ringOf = (...ids: number[]) => parseKeyRing(ids.map((n) => `k${n}:${key(n)}`).join(','));

function setup() {
  const db = createDb(openMigratedDatabase());
  const org = db.insert(organization).values({ name: 'Acme' }).returning().get();
  return { db, organizationId: org.id };
}

/** Writes a secret variable the way the API does: sealed under the ring's current key, bound to its row. */
function writeSecret(db: ReturnType<typeof setup>['db'], ring: ReturnType<typeof ringOf>, organizationId: string, keyName: string, plaintext: string, id?: string) {
  if (id) {
    db.update(variable).set({ value: sealSecret(ring, plaintext, { table: 'variable', column: 'value', id }) }).where(eq(variable.id, id)).run();
    return id;
  }
  const rowId = newId();
  db.insert(variable).values({ id: rowId, organizationId, key: keyName, isSecret: true, value: sealSecret(ring, plaintext, { table: 'variable', column: 'value', id: rowId }) }).run();
  return rowId;
}

function readSecret(db: ReturnType<typeof setup>['db'], ring: ReturnType<typeof ringOf>, id: string) {
  const row = db.select().from(variable).where(eq(variable.id, id)).get()!;
  return openSecret(ring, row.value, { table: 'variable', column: 'value', id });
}

describe('re-encryption', () => {
  test('re-seals every sealed column under the current key and reports counts before and after', () => {
    const { db, organizationId } = setup();
    const old = ringOf(1);
    const ids = Array.from({ length: 7 }, (_, i) => writeSecret(db, old, organizationId, `K${i}`, `value-${i}`));
    db.insert(variable).values({ organizationId, key: 'PLAIN', value: 'not a secret' }).run();
    const principalId = newId();
    db.insert(principal)
      .values({ id: principalId, organizationId, kind: 'database', provider: 'postgres', username: 'app', appliedUsername: 'app', password: sealSecret(old, 'pw', { table: 'principal', column: 'password', id: principalId }) })
      .run();

    const rotated = ringOf(2, 1);
    const report = reencryptAll(db, rotated, 3);
    expect(report.before).toEqual({ k1: 8 });
    expect(report.after).toEqual({ k2: 8 });
    expect(report).toMatchObject({ resealed: 8, failed: 0 });
    ids.forEach((id, i) => expect(readSecret(db, ringOf(2), id)).toBe(`value-${i}`));
    expect(db.select().from(variable).where(eq(variable.key, 'PLAIN')).get()!.value).toBe('not a secret');
  });

  test('is idempotent and resumable: a second run, or one after a partial run, only finishes the job', () => {
    const { db, organizationId } = setup();
    const old = ringOf(1);
    const ids = Array.from({ length: 5 }, (_, i) => writeSecret(db, old, organizationId, `K${i}`, `v${i}`));
    const rotated = ringOf(2, 1);
    // A partial earlier run: two rows already re-sealed.
    writeSecret(db, rotated, organizationId, 'K0', 'v0', ids[0]);
    writeSecret(db, rotated, organizationId, 'K1', 'v1', ids[1]);
    expect(reencryptAll(db, rotated).resealed).toBe(3);
    const again = reencryptAll(db, rotated);
    expect(again.resealed).toBe(0);
    expect(again.after).toEqual({ k2: 5 });
  });

  test('values under a key the ring lacks are counted, left untouched and reported as failed', () => {
    const { db, organizationId } = setup();
    writeSecret(db, ringOf(9), organizationId, 'LOST', 'x');
    writeSecret(db, ringOf(1), organizationId, 'KEPT', 'y');
    const ring = ringOf(2, 1);
    const counts = countSealedByKeyId(db);
    expect(keyIdsMissingFromRing(counts, ring)).toEqual({ k9: 1 });
    const report = reencryptAll(db, ring);
    expect(report).toMatchObject({ resealed: 1, failed: 1, after: { k2: 1, k9: 1 } });
  });

  test('property: after any sequence of write / rotate / re-encrypt, reads return the last write and re-encryption leaves no old key', () => {
    const action = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), slot: fc.integer({ min: 0, max: 3 }), value: fc.string({ maxLength: 40 }) }),
      fc.record({ kind: fc.constant('rotate' as const) }),
      fc.record({ kind: fc.constant('reencrypt' as const) }),
    );
    fc.assert(
      fc.property(fc.array(action, { minLength: 1, maxLength: 25 }), (actions) => {
        const { db, organizationId } = setup();
        let keyNumbers = [1];
        let ring = ringOf(...keyNumbers);
        const rowIds = new Map<number, string>();
        const expected = new Map<number, string>();
        for (const step of actions) {
          if (step.kind === 'write') {
            rowIds.set(step.slot, writeSecret(db, ring, organizationId, `S${step.slot}`, step.value, rowIds.get(step.slot)));
            expected.set(step.slot, step.value);
          } else if (step.kind === 'rotate') {
            keyNumbers = [keyNumbers[0]! + 1, ...keyNumbers];
            ring = ringOf(...keyNumbers);
          } else {
            reencryptAll(db, ring, 2);
            for (const id of rowIds.values()) {
              expect(secretKeyId(db.select().from(variable).where(eq(variable.id, id)).get()!.value)).toBe(ring.currentKeyId);
            }
          }
          for (const [slot, value] of expected) expect(readSecret(db, ring, rowIds.get(slot)!)).toBe(value);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('sealed column registry', () => {
  test('covers every column whose CHECK demands a sealed envelope', () => {
    const sqlite = openMigratedDatabase();
    const sealedByCheck = sqlite
      .query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE '%pnsecret.v%'")
      .all()
      .flatMap(({ name, sql }) => [...sql.matchAll(/"(\w+)"\."(\w+)" GLOB 'pnsecret\.v/g)].map((m) => `${name}.${m[2]}`));
    const registered = SEALED_COLUMNS.map((column) => `${column.tableName}.${column.columnName}`);
    expect(new Set(sealedByCheck)).toEqual(new Set(registered));
  });
});
