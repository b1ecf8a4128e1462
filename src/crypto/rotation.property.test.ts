/**
 * Key rotation as a property: random sequences of write / rotate (prepend a new key) /
 * re-encrypt (reseal every stored value) / retire (drop the oldest key) / read over a small
 * in-memory table of rows {table, column, id} -> pnsecret envelope.
 *
 * After every step:
 * - a row whose key is still in the ring opens to the last value written to it, whichever key
 *   sealed it;
 * - a row whose key was retired refuses to open (with the generic envelope error);
 * and after a re-encrypt no readable row is sealed under an old key id.
 */
import { describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { EnvelopeError } from './envelope.ts';
import { type KeyRing, parseKeyRing } from './keyring.ts';
import { openSecret, resealSecret, sealSecret, type SecretOwner, secretKeyId } from './secret.ts';

const ROWS: readonly SecretOwner[] = [
  { table: 'variable', column: 'value', id: '01940000-0000-7000-8000-000000000001' },
  { table: 'variable', column: 'value', id: '01940000-0000-7000-8000-000000000002' },
  { table: 'principal', column: 'password', id: '01940000-0000-7000-8000-000000000001' },
  { table: 'tls_certificate', column: 'private_key', id: '01940000-0000-7000-8000-000000000003' },
];

type Step =
  | { kind: 'write'; row: number; value: string }
  | { kind: 'rotate' }
  | { kind: 'reencrypt' }
  | { kind: 'retire' }
  | { kind: 'read'; row: number };

const rowIndex = fc.integer({ min: 0, max: ROWS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      row: rowIndex,
      value: fc.string({ unit: 'grapheme', maxLength: 40 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'rotate' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'reencrypt' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'retire' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), row: rowIndex }) },
);

/** Deterministic key ring entries, so a shrunk counterexample replays identically. */
const ringEntry = (generation: number) =>
  `gen${generation}:${createHash('sha256').update(`rotation key ${generation}`).digest('base64')}`;

/** The system under test (a table of envelopes and the ring) next to the model (plain values). */
class RotationScenario {
  private entries = [ringEntry(0)];
  private generation = 0;
  ring: KeyRing = parseKeyRing(this.entries.join(','));
  readonly table = new Map<number, string>();
  readonly lastWritten = new Map<number, string>();

  apply(current: Step): void {
    switch (current.kind) {
      case 'write':
        this.table.set(current.row, sealSecret(this.ring, current.value, ROWS[current.row] as SecretOwner));
        this.lastWritten.set(current.row, current.value);
        break;
      case 'rotate':
        this.generation += 1;
        this.setRing([ringEntry(this.generation), ...this.entries]);
        break;
      case 'retire':
        if (this.entries.length > 1) this.setRing(this.entries.slice(0, -1));
        break;
      case 'reencrypt':
        this.reencrypt();
        break;
      case 'read':
        this.expectRowReadsCorrectly(current.row);
        break;
    }
  }

  /** What POST /admin/secrets/reencrypt does: reseal every row it can open. */
  private reencrypt(): void {
    for (const [row, envelope] of this.table) {
      if (!this.ring.hasKey(secretKeyId(envelope))) continue; // unreadable; checked in expectAllRowsConsistent
      const result = resealSecret(this.ring, envelope, ROWS[row] as SecretOwner);
      expect(result.resealed).toBe(result.previousKeyId !== this.ring.currentKeyId);
      this.table.set(row, result.envelope);
    }
    for (const envelope of this.table.values()) {
      const keyId = secretKeyId(envelope);
      if (this.ring.hasKey(keyId)) expect(keyId).toBe(this.ring.currentKeyId);
    }
  }

  expectRowReadsCorrectly(row: number): void {
    const envelope = this.table.get(row);
    if (envelope === undefined) return;
    const owner = ROWS[row] as SecretOwner;
    if (this.ring.hasKey(secretKeyId(envelope))) {
      expect(openSecret(this.ring, envelope, owner)).toBe(this.lastWritten.get(row) as string);
    } else {
      expect(() => openSecret(this.ring, envelope, owner)).toThrow(EnvelopeError);
    }
  }

  expectAllRowsConsistent(): void {
    for (const row of this.table.keys()) this.expectRowReadsCorrectly(row);
  }

  private setRing(entries: string[]): void {
    this.entries = entries;
    this.ring = parseKeyRing(entries.join(','));
  }
}

describe('key rotation', () => {
  test('reads return the last write while its key is in the ring; re-encrypt leaves no old key ids', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const scenario = new RotationScenario();
        for (const current of steps) {
          scenario.apply(current);
          scenario.expectAllRowsConsistent();
        }
      }),
      { numRuns: 200 },
    );
  });

  test('rotate, re-encrypt, retire: nothing is lost when re-encryption runs before retiring', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(rowIndex, fc.string()), { minLength: 1, maxLength: 8 }), (writes) => {
        const scenario = new RotationScenario();
        for (const [row, value] of writes) scenario.apply({ kind: 'write', row, value });
        for (const kind of ['rotate', 'reencrypt', 'retire'] as const) scenario.apply({ kind });
        expect(scenario.ring.keyIds).toEqual(['gen1']);
        for (const [row, value] of scenario.lastWritten) {
          expect(openSecret(scenario.ring, scenario.table.get(row) as string, ROWS[row] as SecretOwner)).toBe(value);
        }
      }),
    );
  });
});
