/**
 * The root key ring from `PANEL_SECRETS`: an ordered, comma-separated list of
 * `<keyId>:<base64 key>` entries. The first entry seals; every entry opens, so rotation is
 * "prepend a new key, re-seal, later drop the old one".
 *
 * Root keys never encrypt anything directly: each scheme uses its own HKDF-SHA256 subkey
 * (info `pn/v1/<purpose>`), so a value sealed for one purpose cannot be opened as another.
 * Parse errors name the offending entry by position (and key id when it is well-formed) but
 * never echo key text: these messages end up in start-up logs.
 */
import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../lib/clock.ts';
import { isKeyId } from './envelope.ts';
import { AES_KEY_BYTES, decodeCanonicalBase64url, hkdfSha256 } from './primitives.ts';

export const MIN_ROOT_KEY_BYTES = 32;
const SUBKEY_PURPOSE = /^[a-z0-9]{1,32}$/;
const EMPTY_SALT = new Uint8Array(0);

export interface KeyRing {
  /** The key id new envelopes are sealed under (the first entry). */
  readonly currentKeyId: string;
  /** Every key id, in ring order (current first). */
  readonly keyIds: readonly string[];
  hasKey(keyId: string): boolean;
  /** The `purpose` subkey of `keyId`, or null when the ring has no such key. */
  subkey(keyId: string, purpose: string): Buffer | null;
  /** The `purpose` subkey of the current key. */
  currentSubkey(purpose: string): Buffer;
}

export class KeyRingError extends Error {
  constructor(message: string) {
    super(`PANEL_SECRETS: ${message}`);
    this.name = 'KeyRingError';
  }
}

/**
 * Keys live in private fields: the ring serializes (JSON, logs, inspection) as its key ids only.
 */
class RootKeyRing implements KeyRing {
  readonly currentKeyId: string;
  readonly keyIds: readonly string[];
  readonly #rootKeys: ReadonlyMap<string, Buffer>;
  readonly #subkeys = new Map<string, Buffer>();

  constructor(rootKeys: ReadonlyMap<string, Buffer>) {
    this.#rootKeys = rootKeys;
    this.keyIds = Object.freeze([...rootKeys.keys()]);
    const [first] = this.keyIds;
    if (first === undefined) throw new KeyRingError('the key ring is empty');
    this.currentKeyId = first;
  }

  hasKey(keyId: string): boolean {
    return this.#rootKeys.has(keyId);
  }

  subkey(keyId: string, purpose: string): Buffer | null {
    if (!SUBKEY_PURPOSE.test(purpose)) throw new TypeError('subkey purpose must be 1-32 of a-z 0-9');
    const rootKey = this.#rootKeys.get(keyId);
    if (rootKey === undefined) return null;
    // keyId and purpose cannot contain '/', so the cache key is unambiguous.
    const cacheKey = `${keyId}/${purpose}`;
    let subkey = this.#subkeys.get(cacheKey);
    if (subkey === undefined) {
      subkey = hkdfSha256(rootKey, EMPTY_SALT, `pn/v1/${purpose}`);
      this.#subkeys.set(cacheKey, subkey);
    }
    return subkey;
  }

  currentSubkey(purpose: string): Buffer {
    return this.subkey(this.currentKeyId, purpose) as Buffer;
  }
}

const STANDARD_BASE64 = /^[A-Za-z0-9+/]+(={0,2})$/;
const URL_SAFE_BASE64 = /^[A-Za-z0-9_-]+(={0,2})$/;

/**
 * Decodes a key written in standard or url-safe base64, padded or not. Only the canonical
 * encoding of the decoded bytes is accepted (right amount of padding, zero trailing bits), so a
 * mistyped character is reported instead of silently producing a different key.
 */
function decodeKeyText(text: string): Buffer | null {
  const match = STANDARD_BASE64.exec(text) ?? URL_SAFE_BASE64.exec(text);
  if (!match) return null;
  const padding = match[1] ?? '';
  const unpadded = text.slice(0, text.length - padding.length);
  if (padding.length > 0 && padding.length !== (4 - (unpadded.length % 4)) % 4) return null;
  return decodeCanonicalBase64url(unpadded.replaceAll('+', '-').replaceAll('/', '_'));
}

/** Parses `PANEL_SECRETS`; throws `KeyRingError` naming the first bad entry. */
export function parseKeyRing(text: string): KeyRing {
  if (text.trim() === '') throw new KeyRingError('no keys; expected <keyId>:<base64 key>[,<keyId>:<base64 key>...]');
  const rootKeys = new Map<string, Buffer>();
  text.split(',').forEach((rawEntry, index) => {
    const entry = rawEntry.trim();
    const position = `entry ${index + 1}`;
    if (entry === '') throw new KeyRingError(`${position} is empty (stray comma?)`);
    const separator = entry.indexOf(':');
    if (separator < 0) throw new KeyRingError(`${position} is not <keyId>:<base64 key>`);
    const keyId = entry.slice(0, separator);
    // An id that fails the pattern is not echoed: it may be a key pasted in the wrong place.
    if (!isKeyId(keyId)) throw new KeyRingError(`${position} has an invalid key id (1-32 of A-Z a-z 0-9 _ -)`);
    const named = `${position} (keyId "${keyId}")`;
    if (rootKeys.has(keyId)) throw new KeyRingError(`${named} repeats a key id already in the ring`);
    const key = decodeKeyText(entry.slice(separator + 1));
    if (key === null) throw new KeyRingError(`${named} is not valid base64 (standard or url-safe)`);
    if (key.length < MIN_ROOT_KEY_BYTES) {
      throw new KeyRingError(`${named} is ${key.length} bytes; at least ${MIN_ROOT_KEY_BYTES} are needed`);
    }
    rootKeys.set(keyId, key);
  });
  return new RootKeyRing(rootKeys);
}

/**
 * A fresh single-entry ring, `k<yyyymmdd>-<6 hex>:<32 random bytes, base64>`, for the
 * development runtime. It is also a ready-made entry to prepend when rotating.
 */
export function generateKeyRingText(clock: Clock = systemClock): string {
  const day = clock.now().toISOString().slice(0, 10).replaceAll('-', '');
  const keyId = `k${day}-${randomBytes(3).toString('hex')}`;
  return `${keyId}:${randomBytes(AES_KEY_BYTES).toString('base64')}`;
}
