/**
 * `pnsecret.v1.<keyId>.<payload>`: a secret at rest (variable values, TLS private keys,
 * principal passwords), sealed with the key ring's `pnsecret` subkey.
 *
 * The associated data is the header plus the owner of the value (table, column, row id). A
 * value copied into another row or column, or into another organization's row (row ids are
 * globally unique UUIDs), fails authentication instead of opening there.
 */
import {
  type EnvelopeLayout,
  envelopeHeader,
  formatEnvelope,
  keyIdField,
  type ParsedEnvelope,
  parseEnvelope,
  refuseEnvelope,
} from './envelope.ts';
import type { KeyRing } from './keyring.ts';
import { aesGcmOpen, aesGcmSeal, GCM_NONCE_BYTES, GCM_TAG_BYTES } from './primitives.ts';

const SECRET_SCHEME = 'pnsecret';

const secretLayout: EnvelopeLayout<'keyId'> = {
  scheme: SECRET_SCHEME,
  idFields: [keyIdField('keyId')],
  minPayloadBytes: GCM_NONCE_BYTES + GCM_TAG_BYTES,
};

/** Where a sealed value lives; it opens only at the same place. */
export interface SecretOwner {
  readonly table: string;
  readonly column: string;
  readonly id: string;
}

export interface ResealResult {
  /** The envelope sealed under the current key (the input itself when `resealed` is false). */
  readonly envelope: string;
  /** False when the input was already sealed under the current key and is returned unchanged. */
  readonly resealed: boolean;
  /** The key id the input was sealed under, for per-key re-encryption counts. */
  readonly previousKeyId: string;
}

/** Header and owner, JSON-encoded so no choice of table/column/id can collide with another. */
function associatedData(header: string, owner: SecretOwner): Buffer {
  return Buffer.from(`${header}|${JSON.stringify([owner.table, owner.column, owner.id])}`, 'utf8');
}

function assertOwner(owner: SecretOwner): void {
  for (const part of ['table', 'column', 'id'] as const) {
    if (typeof owner[part] !== 'string' || owner[part] === '') {
      throw new TypeError(`pnsecret owner.${part} must be a non-empty string`);
    }
  }
}

/** Seals `plaintext` under the ring's current key, bound to `owner`. */
export function sealSecret(ring: KeyRing, plaintext: string, owner: SecretOwner): string {
  assertOwner(owner);
  const header = envelopeHeader(secretLayout, { keyId: ring.currentKeyId });
  const key = ring.currentSubkey(SECRET_SCHEME);
  return formatEnvelope(header, aesGcmSeal(key, Buffer.from(plaintext, 'utf8'), associatedData(header, owner)));
}

/** Opens a `pnsecret` envelope stored at `owner`; throws `EnvelopeError` on any failure. */
export function openSecret(ring: KeyRing, envelope: string, owner: SecretOwner): string {
  return openParsed(ring, parseEnvelope(secretLayout, envelope), owner);
}

function openParsed(ring: KeyRing, { header, ids, payload }: ParsedEnvelope<'keyId'>, owner: SecretOwner): string {
  const key = ring.subkey(ids.keyId, SECRET_SCHEME) ?? refuseEnvelope();
  const plaintext = aesGcmOpen(key, payload, associatedData(header, owner)) ?? refuseEnvelope();
  return plaintext.toString('utf8');
}

/**
 * The key id of a well-formed `pnsecret` envelope, without opening it (for counting values per
 * key before and after a rotation). Throws `EnvelopeError` when the text is malformed.
 */
export function secretKeyId(envelope: string): string {
  return parseEnvelope(secretLayout, envelope).ids.keyId;
}

/**
 * Re-seals a stored value under the ring's current key. An envelope already under the current
 * key is only verified and returned as is, so re-encryption can run repeatedly and only
 * rewrites what changed.
 */
export function resealSecret(ring: KeyRing, envelope: string, owner: SecretOwner): ResealResult {
  const parsed = parseEnvelope(secretLayout, envelope);
  const plaintext = openParsed(ring, parsed, owner);
  const previousKeyId = parsed.ids.keyId;
  if (previousKeyId === ring.currentKeyId) return { envelope, resealed: false, previousKeyId };
  return { envelope: sealSecret(ring, plaintext, owner), resealed: true, previousKeyId };
}
