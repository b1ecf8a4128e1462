/**
 * The strict codec shared by every `pn*` envelope scheme:
 *
 *   <scheme>.v<n>.<id fields...>.<payload>
 *
 * The header (every field before the payload) is the AES-GCM associated data, so a changed
 * scheme, version or id fails authentication even when it still parses. Parsing is strict so
 * that one sealed value has exactly one text: exact field count, exact scheme, canonical version
 * marker, ids in their expected shape, canonical unpadded base64url payload.
 *
 * Every failure, from a stray dot to a wrong key or a replayed challenge, throws the same
 * `EnvelopeError` with the same message: a caller (or an attacker probing an endpoint) learns
 * only that the envelope was not accepted, never which check refused it.
 */
import { isUuid } from '../lib/ids.ts';
import { decodeCanonicalBase64url, encodeBase64url } from './primitives.ts';

export const ENVELOPE_ERROR_MESSAGE = 'invalid or expired envelope';

export class EnvelopeError extends Error {
  constructor() {
    super(ENVELOPE_ERROR_MESSAGE);
    this.name = 'EnvelopeError';
  }
}

/** Throws the one generic envelope error; typed `never` so it reads as a guard. */
export function refuseEnvelope(): never {
  throw new EnvelopeError();
}

/** The only version this build reads and writes. */
export const ENVELOPE_VERSION = 1;
const VERSION_MARKER = `v${ENVELOPE_VERSION}`;

/** Key ids (key ring entries and daemon keys): short, and safe inside a dot-separated text. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
export const isKeyId = (value: string): boolean => KEY_ID_PATTERN.test(value);

/** The id fields of one scheme, in header order, each with the shape it must have. */
export interface EnvelopeLayout<Field extends string> {
  readonly scheme: string;
  readonly idFields: readonly { readonly name: Field; readonly isValid: (value: string) => boolean }[];
  /** Fixed-size parts of the payload (nonce, tag, ephemeral key); shorter payloads are refused. */
  readonly minPayloadBytes: number;
}

export interface ParsedEnvelope<Field extends string> {
  /** Every field before the payload, dot-joined: the associated data the payload was sealed with. */
  readonly header: string;
  readonly ids: Readonly<Record<Field, string>>;
  readonly payload: Buffer;
}

export const keyIdField = <Field extends string>(name: Field) => ({ name, isValid: isKeyId });
export const uuidField = <Field extends string>(name: Field) => ({ name, isValid: isUuid });

/**
 * Parses the version marker `v<n>`: n is a positive integer without leading zeros, so `v1` has
 * one spelling (`v01`, `v0`, `V1` are not version markers at all). Returns null when malformed.
 */
export function parseVersionMarker(field: string): number | null {
  const match = /^v([1-9][0-9]{0,8})$/.exec(field);
  return match ? Number(match[1]) : null;
}

/** Parses `text` as an envelope of `layout`, or throws `EnvelopeError`. */
export function parseEnvelope<Field extends string>(
  layout: EnvelopeLayout<Field>,
  text: unknown,
): ParsedEnvelope<Field> {
  if (typeof text !== 'string') refuseEnvelope();
  const fields = text.split('.');
  if (fields.length !== layout.idFields.length + 3) refuseEnvelope();
  const [scheme, version] = fields;
  if (scheme !== layout.scheme) refuseEnvelope();
  if (version === undefined || parseVersionMarker(version) !== ENVELOPE_VERSION) refuseEnvelope();

  const ids = {} as Record<Field, string>;
  layout.idFields.forEach((field, index) => {
    const value = fields[index + 2];
    if (value === undefined || !field.isValid(value)) refuseEnvelope();
    ids[field.name] = value;
  });

  const payloadText = fields[fields.length - 1] ?? '';
  const payload = decodeCanonicalBase64url(payloadText);
  if (payload === null || payload.length < layout.minPayloadBytes) refuseEnvelope();

  return { header: fields.slice(0, -1).join('.'), ids, payload };
}

/**
 * Builds the header for sealing. Ids come from our own records here, so a malformed one is a
 * programming error and throws a descriptive TypeError rather than the generic envelope error.
 */
export function envelopeHeader<Field extends string>(
  layout: EnvelopeLayout<Field>,
  ids: Readonly<Record<Field, string>>,
): string {
  const idTexts = layout.idFields.map((field) => {
    const value = ids[field.name];
    if (typeof value !== 'string' || !field.isValid(value)) {
      throw new TypeError(`${layout.scheme}: ${field.name} has an invalid shape`);
    }
    return value;
  });
  return [layout.scheme, VERSION_MARKER, ...idTexts].join('.');
}

export const formatEnvelope = (header: string, payload: Uint8Array): string =>
  `${header}.${encodeBase64url(payload)}`;
