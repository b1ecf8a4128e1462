import { describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import {
  aesGcmOpen,
  aesGcmSeal,
  decodeCanonicalBase64url,
  GCM_NONCE_BYTES,
  GCM_TAG_BYTES,
  randomSecretValue,
  safeEqual,
} from './primitives.ts';

describe('decodeCanonicalBase64url', () => {
  test('decodes the canonical unpadded form', () => {
    for (const length of [0, 1, 2, 3, 31, 32, 33]) {
      const bytes = randomBytes(length);
      expect(decodeCanonicalBase64url(bytes.toString('base64url'))).toEqual(bytes);
    }
  });

  test.each([
    ['padding', 'YQ=='],
    ['standard alphabet +', 'a+b_'],
    ['standard alphabet /', 'a/b_'],
    ['impossible length', 'YWJjZ'],
    ['trailing bits set', 'YR'],
    ['whitespace', 'YW Jj'],
    ['non-ASCII', 'YWJé'],
  ])('refuses %s', (_name, text) => {
    expect(decodeCanonicalBase64url(text)).toBeNull();
  });
});

describe('AES-256-GCM', () => {
  const key = randomBytes(32);
  const aad = Buffer.from('header');

  test('round-trips with a fresh nonce each time', () => {
    const first = aesGcmSeal(key, Buffer.from('hello'), aad);
    const second = aesGcmSeal(key, Buffer.from('hello'), aad);
    expect(first.length).toBe(GCM_NONCE_BYTES + 5 + GCM_TAG_BYTES);
    expect(first.subarray(0, GCM_NONCE_BYTES)).not.toEqual(second.subarray(0, GCM_NONCE_BYTES));
    expect(aesGcmOpen(key, first, aad)?.toString()).toBe('hello');
  });

  test('returns null for another key, other associated data, altered or short input', () => {
    const sealed = aesGcmSeal(key, Buffer.from('hello'), aad);
    const altered = Buffer.from(sealed);
    altered[GCM_NONCE_BYTES] = (altered[GCM_NONCE_BYTES] as number) ^ 1;
    expect(aesGcmOpen(randomBytes(32), sealed, aad)).toBeNull();
    expect(aesGcmOpen(key, sealed, Buffer.from('other'))).toBeNull();
    expect(aesGcmOpen(key, altered, aad)).toBeNull();
    expect(aesGcmOpen(key, sealed.subarray(0, GCM_NONCE_BYTES + GCM_TAG_BYTES - 1), aad)).toBeNull();
  });
});

describe('randomSecretValue', () => {
  test('is unpadded base64url of the requested number of random bytes', () => {
    const value = randomSecretValue();
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(decodeCanonicalBase64url(randomSecretValue(48))?.length).toBe(48);
    expect(randomSecretValue()).not.toBe(value);
  });

  test('refuses sizes that are guessable or not whole bytes', () => {
    expect(() => randomSecretValue(15)).toThrow(RangeError);
    expect(() => randomSecretValue(32.5)).toThrow(RangeError);
  });
});

describe('safeEqual', () => {
  test.each([
    ['', '', true],
    ['token', 'token', true],
    ['pässwörd', 'pässwörd', true],
    ['token', 'tokem', false],
    ['token', 'token-longer', false],
    ['', 'x', false],
  ])('%p vs %p', (a, b, equal) => {
    expect(safeEqual(a, b)).toBe(equal);
  });
});
