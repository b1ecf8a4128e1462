import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { KeyRing } from '../crypto/keyring.ts';
import { safeEqual } from '../crypto/primitives.ts';

/**
 * Opaque bearer credentials (sessions, API tokens, join tokens, invitations): 256 random bits
 * with a readable prefix. Only the SHA-256 of a token is ever stored, so a database leak does
 * not hand out live credentials.
 */
export function newOpaqueToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

const COOKIE_PURPOSE = 'pncookie';

/** `<token>.<hmac>`: the session cookie is signed with a key-ring subkey (verifiable by any key in the ring). */
export function signCookieValue(ring: KeyRing, token: string): string {
  const mac = createHmac('sha256', ring.currentSubkey(COOKIE_PURPOSE)).update(token).digest('base64url');
  return `${token}.${mac}`;
}

export function verifyCookieValue(ring: KeyRing, value: string): string | null {
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return null;
  const token = value.slice(0, dot);
  const mac = value.slice(dot + 1);
  for (const keyId of ring.keyIds) {
    const key = ring.subkey(keyId, COOKIE_PURPOSE);
    if (key && safeEqual(createHmac('sha256', key).update(token).digest('base64url'), mac)) return token;
  }
  return null;
}
