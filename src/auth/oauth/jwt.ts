/**
 * Compact JWS verification for OpenID Connect ID tokens, with node:crypto only. Deliberately
 * narrow: RS256 and ES256 (what providers sign ID tokens with), the key chosen from the
 * provider's JWKS by `kid` and key type, and nothing an attacker can steer — `alg: none`, HMAC
 * algorithms, embedded keys (`jwk`, `jku`, `x5u`) and `crit` extensions are all refused.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { isRecord } from './provider.ts';

export type JwsAlgorithm = 'RS256' | 'ES256';
export const JWS_ALGORITHMS: readonly JwsAlgorithm[] = ['RS256', 'ES256'];

export interface Jwk {
  kty?: unknown;
  kid?: unknown;
  alg?: unknown;
  use?: unknown;
  crv?: unknown;
  [key: string]: unknown;
}

export type JwsResult =
  | { ok: true; payload: Record<string, unknown>; header: Record<string, unknown> }
  /** `unknown_key`: no key of the JWKS has the token's `kid` (the provider may have rotated). */
  | { ok: false; reason: 'malformed' | 'unsupported' | 'unknown_key' | 'bad_signature' };

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const MIN_RSA_BITS = 2048;

function decodeJsonSegment(segment: string): Record<string, unknown> | null {
  if (!SEGMENT.test(segment)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** Whether `jwk` may verify `alg` (key type, curve, declared use and algorithm). */
function keyFits(jwk: Jwk, alg: JwsAlgorithm): boolean {
  if (jwk.use !== undefined && jwk.use !== 'sig') return false;
  if (jwk.alg !== undefined && jwk.alg !== alg) return false;
  return alg === 'RS256' ? jwk.kty === 'RSA' : jwk.kty === 'EC' && jwk.crv === 'P-256';
}

function importKey(jwk: Jwk, alg: JwsAlgorithm): KeyObject | null {
  try {
    const key = createPublicKey({ key: jwk as never, format: 'jwk' });
    if (key.type !== 'public') return null;
    if (alg === 'RS256' && (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)) return null;
    if (alg === 'ES256' && (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')) return null;
    return key;
  } catch {
    return null;
  }
}

/** Verifies the signature of a compact JWS against a JWKS; claims are the caller's to check. */
export function verifyJws(token: string, keys: readonly Jwk[]): JwsResult {
  const parts = token.split('.');
  if (parts.length !== 3 || !SEGMENT.test(parts[2]!)) return { ok: false, reason: 'malformed' };
  const header = decodeJsonSegment(parts[0]!);
  const payload = decodeJsonSegment(parts[1]!);
  if (!header || !payload) return { ok: false, reason: 'malformed' };

  const alg = header.alg;
  if (!JWS_ALGORITHMS.includes(alg as JwsAlgorithm)) return { ok: false, reason: 'unsupported' };
  if (['crit', 'jwk', 'jku', 'x5u', 'x5c'].some((name) => name in header)) return { ok: false, reason: 'unsupported' };
  if (header.kid !== undefined && typeof header.kid !== 'string') return { ok: false, reason: 'malformed' };

  const candidates = keys.filter((key) => (header.kid === undefined || key.kid === header.kid) && keyFits(key, alg as JwsAlgorithm));
  if (candidates.length === 0) return { ok: false, reason: header.kid === undefined ? 'bad_signature' : 'unknown_key' };

  const signingInput = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
  const signature = Buffer.from(parts[2]!, 'base64url');
  // ES256 signatures are the raw r|s pair (RFC 7518 §3.4), 64 bytes.
  if (alg === 'ES256' && signature.length !== 64) return { ok: false, reason: 'bad_signature' };
  for (const jwk of candidates) {
    const key = importKey(jwk, alg as JwsAlgorithm);
    if (!key) continue;
    const valid = alg === 'ES256' ? verify('sha256', signingInput, { key, dsaEncoding: 'ieee-p1363' }, signature) : verify('sha256', signingInput, key, signature);
    if (valid) return { ok: true, payload, header };
  }
  return { ok: false, reason: 'bad_signature' };
}
