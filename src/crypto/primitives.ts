/**
 * Low-level building blocks shared by the envelope schemes: canonical base64url, AES-256-GCM
 * with a random nonce, HKDF-SHA256, and the two random/comparison helpers the rest of the
 * service uses for show-once secrets and token checks. Only `node:crypto`, so it runs under Bun
 * and in the compiled executable alike.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export const AES_KEY_BYTES = 32;
export const GCM_NONCE_BYTES = 12;
export const GCM_TAG_BYTES = 16;

const BASE64URL_ALPHABET = /^[A-Za-z0-9_-]*$/;

export const encodeBase64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/**
 * Decodes unpadded base64url and returns null unless `text` is the one canonical encoding of
 * its bytes. Node's decoder is lenient (it skips padding, mixes alphabets and ignores non-zero
 * trailing bits), so several texts would otherwise decode to the same bytes; requiring the
 * canonical form keeps one envelope text per sealed value.
 */
export function decodeCanonicalBase64url(text: string): Buffer | null {
  if (!BASE64URL_ALPHABET.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/** HKDF-SHA256 to a 32-byte key. */
export function hkdfSha256(inputKey: Uint8Array, salt: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', inputKey, salt, info, AES_KEY_BYTES));
}

/** AES-256-GCM under a fresh random 96-bit nonce; returns nonce || ciphertext || tag. */
export function aesGcmSeal(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Buffer {
  const nonce = randomBytes(GCM_NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: GCM_TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]);
}

/**
 * Opens nonce || ciphertext || tag. Returns null on any failure (short input, wrong key, wrong
 * AAD, altered bytes) so callers can fold every failure into one generic error.
 */
export function aesGcmOpen(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Buffer | null {
  if (sealed.length < GCM_NONCE_BYTES + GCM_TAG_BYTES) return null;
  const nonce = sealed.subarray(0, GCM_NONCE_BYTES);
  const ciphertext = sealed.subarray(GCM_NONCE_BYTES, sealed.length - GCM_TAG_BYTES);
  const tag = sealed.subarray(sealed.length - GCM_TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: GCM_TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    return null;
  }
}

/** Smallest accepted size: anything shorter is guessable. */
const MIN_SECRET_VALUE_BYTES = 16;

/** A fresh random value for show-once generated secrets, as unpadded base64url. */
export function randomSecretValue(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < MIN_SECRET_VALUE_BYTES) {
    throw new RangeError(`randomSecretValue needs an integer of at least ${MIN_SECRET_VALUE_BYTES} bytes`);
  }
  return encodeBase64url(randomBytes(bytes));
}

/**
 * Constant-time string equality. Both sides are hashed first so the comparison always runs over
 * two 32-byte digests: neither the time taken nor an early length check reveals the length of
 * the expected value.
 */
export function safeEqual(a: string, b: string): boolean {
  const digestA = createHash('sha256').update(a, 'utf8').digest();
  const digestB = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(digestA, digestB);
}
