import { describe, expect, test } from 'bun:test';
import { hkdfSync } from 'node:crypto';
import { ManualClock } from '../lib/clock.ts';
import { generateKeyRingText, KeyRingError, parseKeyRing } from './keyring.ts';

const bytes = (length: number, fill: number) => Buffer.alloc(length, fill);
const KEY_A = bytes(32, 0xa1);
const KEY_B = bytes(35, 0xfb); // encodes with '+', '/' and one '=' in standard base64
const entry = (keyId: string, key: Buffer) => `${keyId}:${key.toString('base64')}`;

function keyRingErrorOf(text: string): KeyRingError {
  try {
    parseKeyRing(text);
  } catch (error) {
    expect(error).toBeInstanceOf(KeyRingError);
    return error as KeyRingError;
  }
  throw new Error('expected parseKeyRing to refuse');
}

describe('parseKeyRing', () => {
  test('the first entry seals, all entries are listed in order', () => {
    const ring = parseKeyRing(`${entry('new', KEY_A)},${entry('old', KEY_B)}`);
    expect(ring.currentKeyId).toBe('new');
    expect(ring.keyIds).toEqual(['new', 'old']);
    expect(ring.hasKey('old')).toBe(true);
    expect(ring.hasKey('other')).toBe(false);
  });

  test('accepts standard and url-safe base64, padded or not, and spaces around entries', () => {
    const standard = KEY_B.toString('base64');
    expect(standard).toMatch(/[+/]/);
    const urlSafe = KEY_B.toString('base64url');
    for (const keyText of [standard, standard.replace(/=+$/, ''), urlSafe, `${urlSafe}=`]) {
      const ring = parseKeyRing(` k1:${keyText} , ${entry('k2', KEY_A)}`);
      expect(ring.subkey('k1', 'test')).toEqual(parseKeyRing(entry('k1', KEY_B)).subkey('k1', 'test'));
    }
  });

  test('subkeys are HKDF-SHA256 of the root key with info pn/v1/<purpose>', () => {
    const ring = parseKeyRing(entry('k1', KEY_A));
    const expected = Buffer.from(hkdfSync('sha256', KEY_A, Buffer.alloc(0), 'pn/v1/pnsecret', 32));
    expect(ring.subkey('k1', 'pnsecret')).toEqual(expected);
    expect(ring.currentSubkey('pnsecret')).toEqual(expected);
  });

  test('subkeys differ per purpose and per key, and are cached', () => {
    const ring = parseKeyRing(`${entry('k1', KEY_A)},${entry('k2', KEY_B)}`);
    const secretKey = ring.subkey('k1', 'pnsecret');
    expect(ring.subkey('k1', 'pnsecret')).toBe(secretKey as Buffer);
    expect(ring.subkey('k1', 'pn2fa')).not.toEqual(secretKey);
    expect(ring.subkey('k2', 'pnsecret')).not.toEqual(secretKey);
    expect(secretKey).not.toEqual(KEY_A);
  });

  test('an unknown key id has no subkey; a malformed purpose is a programming error', () => {
    const ring = parseKeyRing(entry('k1', KEY_A));
    expect(ring.subkey('k2', 'pnsecret')).toBeNull();
    expect(() => ring.subkey('k1', 'pn/v2')).toThrow(TypeError);
  });

  test('keys longer than 32 bytes are accepted', () => {
    expect(parseKeyRing(entry('long', bytes(64, 7))).keyIds).toEqual(['long']);
  });
});

describe('parseKeyRing refusals', () => {
  const good = entry('good', KEY_A);
  test.each([
    ['empty text', '', 'no keys'],
    ['blank text', '   ', 'no keys'],
    ['trailing comma', `${good},`, 'entry 2 is empty'],
    ['empty entry in the middle', `${good},,${entry('k3', KEY_B)}`, 'entry 2 is empty'],
    ['entry without separator', `${good},${KEY_B.toString('base64')}`, 'entry 2 is not <keyId>:<base64 key>'],
    ['invalid key id', `${good},bad.id:${KEY_B.toString('base64')}`, 'entry 2 has an invalid key id'],
    ['key id too long', `${'k'.repeat(33)}:${KEY_A.toString('base64')}`, 'entry 1 has an invalid key id'],
    ['duplicate key id', `${good},${entry('good', KEY_B)}`, 'entry 2 (keyId "good") repeats a key id'],
    ['bad base64 character', `${good},k2:*${KEY_B.toString('base64').slice(1)}`, 'entry 2 (keyId "k2") is not valid'],
    ['mixed alphabets', `k2:${KEY_B.toString('base64').replace('/', '_')}`, 'entry 1 (keyId "k2") is not valid base64'],
    ['wrong padding', `k2:${KEY_A.toString('base64')}=`, 'entry 1 (keyId "k2") is not valid base64'],
    ['non-canonical trailing bits', `k2:${KEY_A.toString('base64').replace(/E=$/, 'F=')}`, 'entry 1 (keyId "k2")'],
    ['empty key', 'k2:', 'entry 1 (keyId "k2") is not valid base64'],
    ['short key', `${good},${entry('short', bytes(31, 1))}`, 'entry 2 (keyId "short") is 31 bytes; at least 32'],
  ])('%s', (_name, text, message) => {
    expect(keyRingErrorOf(text).message).toContain(message);
  });

  test('the non-canonical case really differs only in unused bits', () => {
    expect(KEY_A.toString('base64')).toEndWith('E=');
  });
});

describe('generateKeyRingText', () => {
  test('makes a parseable single-entry ring named after the day', () => {
    const text = generateKeyRingText(new ManualClock(new Date('2026-03-09T23:59:59.000Z')));
    expect(text).toMatch(/^k20260309-[0-9a-f]{6}:[A-Za-z0-9+/]{43}=$/);
    const ring = parseKeyRing(text);
    expect(ring.keyIds).toEqual([text.split(':')[0] as string]);
  });

  test('generates a new key id and key each time, usable for rotation', () => {
    const first = generateKeyRingText();
    const second = generateKeyRingText();
    expect(first).not.toBe(second);
    expect(parseKeyRing(`${second},${first}`).keyIds).toHaveLength(2);
  });
});
