import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyRing } from '../crypto/keyring.ts';

/**
 * Opaque bearer credentials (sessions, API tokens, join tokens, invitations): 256 random bits
 * with a readable prefix. Only the SHA-256 of a token is ever stored, so a database leak does
 * not hand out live credentials.
 */
export function newOpaqueToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  // Bun's one-shot SHA-256: the same digest as node:crypto's createHash, without a Hash object per call.
  return Bun.SHA256.hash(token, 'base64url');
}

const COOKIE_PURPOSE = 'pncookie';

/** `<token>.<hmac>`: the session cookie is signed with a key-ring subkey (verifiable by any key in the ring). */
export function signCookieValue(ring: KeyRing, token: string): string {
  const mac = createHmac('sha256', ring.currentSubkey(COOKIE_PURPOSE)).update(token).digest('base64url');
  return `${token}.${mac}`;
}

/**
 * Cookies verified before, per key ring: every authenticated request presents the same cookie,
 * and the answer (an HMAC under an immutable ring) never changes. Only valid cookies are kept,
 * so a stream of forged ones cannot grow it; it is cleared when full. Whether the session is
 * still alive is decided by the database on every request, not here.
 */
const verifiedCookies = new WeakMap<KeyRing, Map<string, string>>();
const VERIFIED_COOKIES_MAX = 10_000;

export function verifyCookieValue(ring: KeyRing, value: string): string | null {
  let verified = verifiedCookies.get(ring);
  const known = verified?.get(value);
  if (known !== undefined) return known;
  const token = verifyCookieMac(ring, value);
  if (token !== null) {
    if (!verified) verifiedCookies.set(ring, (verified = new Map()));
    if (verified.size >= VERIFIED_COOKIES_MAX) verified.clear();
    verified.set(value, token);
  }
  return token;
}

function verifyCookieMac(ring: KeyRing, value: string): string | null {
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return null;
  const token = value.slice(0, dot);
  // Every request with a cookie comes through here: compare the raw 32-byte MACs in constant
  // time (their length is public) instead of hashing both sides first.
  const macText = value.slice(dot + 1);
  const mac = Buffer.from(macText, 'base64url');
  // Canonical encoding only: the last base64url character has spare bits, so without this a
  // tampered cookie could decode to the same MAC.
  if (mac.length !== 32 || mac.toString('base64url') !== macText) return null;
  for (const keyId of ring.keyIds) {
    const key = ring.subkey(keyId, COOKIE_PURPOSE);
    if (key && timingSafeEqual(createHmac('sha256', key).update(token).digest(), mac)) return token;
  }
  return null;
}
