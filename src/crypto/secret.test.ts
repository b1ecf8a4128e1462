import { describe, expect, test } from 'bun:test';
import { EnvelopeError } from './envelope.ts';
import { generateKeyRingText, parseKeyRing } from './keyring.ts';
import { openSecret, resealSecret, sealSecret, type SecretOwner, secretKeyId } from './secret.ts';

const oldEntry = generateKeyRingText();
const newEntry = generateKeyRingText();
const oldRing = parseKeyRing(oldEntry);
const rotatedRing = parseKeyRing(`${newEntry},${oldEntry}`);
const owner: SecretOwner = { table: 'variable', column: 'value', id: '01940000-0000-7000-8000-000000000001' };

describe('sealSecret / openSecret', () => {
  test('round-trips under the current key id', () => {
    const envelope = sealSecret(oldRing, 's3cret', owner);
    expect(envelope).toMatch(new RegExp(`^pnsecret\\.v1\\.${oldRing.currentKeyId}\\.[A-Za-z0-9_-]+$`));
    expect(openSecret(oldRing, envelope, owner)).toBe('s3cret');
    expect(secretKeyId(envelope)).toBe(oldRing.currentKeyId);
  });

  test('the same value seals to a different text each time', () => {
    expect(sealSecret(oldRing, 'same', owner)).not.toBe(sealSecret(oldRing, 'same', owner));
  });

  test('round-trips large and non-ASCII values', () => {
    const value = `${'é🔑\n'.repeat(50_000)}end`;
    expect(openSecret(oldRing, sealSecret(oldRing, value, owner), owner)).toBe(value);
  });

  test.each([
    ['another table', { ...owner, table: 'principal' }],
    ['another column', { ...owner, column: 'password' }],
    ['another row', { ...owner, id: '01940000-0000-7000-8000-000000000002' }],
  ])('does not open at %s', (_name, elsewhere) => {
    const envelope = sealSecret(oldRing, 's3cret', owner);
    expect(() => openSecret(oldRing, envelope, elsewhere)).toThrow(EnvelopeError);
  });

  test('owner parts cannot be shifted into each other', () => {
    const envelope = sealSecret(oldRing, 's3cret', { table: 'a', column: 'b|c', id: 'd' });
    expect(() => openSecret(oldRing, envelope, { table: 'a|b', column: 'c', id: 'd' })).toThrow(EnvelopeError);
  });

  test('refuses an owner with an empty part when sealing', () => {
    expect(() => sealSecret(oldRing, 'x', { ...owner, column: '' })).toThrow(
      'pnsecret owner.column must be a non-empty string',
    );
  });

  test('a key dropped from the ring no longer opens its values', () => {
    const envelope = sealSecret(rotatedRing, 's3cret', owner);
    expect(() => openSecret(oldRing, envelope, owner)).toThrow(EnvelopeError);
  });

  test('secretKeyId refuses malformed text', () => {
    expect(() => secretKeyId('pnsecret.v1.k1')).toThrow(EnvelopeError);
  });
});

describe('resealSecret', () => {
  test('re-seals a value under an older key with the current key', () => {
    const envelope = sealSecret(oldRing, 's3cret', owner);
    const result = resealSecret(rotatedRing, envelope, owner);
    expect(result.resealed).toBe(true);
    expect(result.previousKeyId).toBe(oldRing.currentKeyId);
    expect(secretKeyId(result.envelope)).toBe(rotatedRing.currentKeyId);
    expect(openSecret(rotatedRing, result.envelope, owner)).toBe('s3cret');
  });

  test('returns an envelope already under the current key unchanged', () => {
    const envelope = sealSecret(rotatedRing, 's3cret', owner);
    expect(resealSecret(rotatedRing, envelope, owner)).toEqual({
      envelope,
      resealed: false,
      previousKeyId: rotatedRing.currentKeyId,
    });
  });

  test('refuses what it cannot open, even when already under the current key', () => {
    const envelope = sealSecret(rotatedRing, 's3cret', owner);
    expect(() => resealSecret(rotatedRing, envelope, { ...owner, id: 'other' })).toThrow(EnvelopeError);
    expect(() => resealSecret(oldRing, envelope, owner)).toThrow(EnvelopeError);
  });
});
