/**
 * The few DER (ASN.1 Distinguished Encoding Rules) encodings an X.509 certificate needs, and a
 * reader for one TLV at a time. Definite lengths only, as DER requires. Pure; no dependencies.
 */

const TAG = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One tag-length-value. */
export const tlv = (tag: number, content: Uint8Array): Buffer => Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);

export const sequence = (...items: Uint8Array[]): Buffer => tlv(TAG.sequence, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(TAG.set, Buffer.concat(items));
export const octetString = (bytes: Uint8Array): Buffer => tlv(TAG.octetString, bytes);
export const utf8String = (text: string): Buffer => tlv(TAG.utf8String, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean): Buffer => tlv(TAG.boolean, Buffer.from([value ? 0xff : 0x00]));
export const nullValue = (): Buffer => tlv(TAG.null, Buffer.alloc(0));

/** [n] EXPLICIT: a constructed context-specific wrapper around already encoded content. */
export const explicit = (n: number, content: Uint8Array): Buffer => tlv(0xa0 | n, content);
/** [n] IMPLICIT of a primitive type: the content with a context-specific primitive tag. */
export const implicitPrimitive = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content);

/** A non-negative INTEGER from its big-endian magnitude (minimal, with a 0x00 when the top bit is set). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = Buffer.from(magnitude.subarray(start));
  return tlv(TAG.integer, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (value: number): Buffer => unsignedInteger(Buffer.from([value >> 24, value >> 16, value >> 8, value].map((b) => b & 0xff)));

/** BIT STRING of whole bytes (no unused bits): signatures and keys. */
export const bitString = (bytes: Uint8Array): Buffer => tlv(TAG.bitString, Buffer.concat([Buffer.from([0]), bytes]));

/**
 * BIT STRING of a named-bit list (key usage): bit 0 is the most significant bit of the first
 * byte, and DER drops trailing zero bits.
 */
export function namedBits(bits: readonly number[]): Buffer {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> (bit % 8);
  const unused = 7 - (highest % 8);
  return tlv(TAG.bitString, Buffer.concat([Buffer.from([unused]), bytes]));
}

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  if (arcs.length < 2 || arcs.some((arc) => !Number.isSafeInteger(arc) || arc < 0)) throw new TypeError(`bad object identifier ${dotted}`);
  const bytes: number[] = [arcs[0]! * 40 + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) base128.unshift((rest & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(TAG.oid, Buffer.from(bytes));
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050; always UTC, whole seconds. */
export function time(date: Date): Buffer {
  const year = date.getUTCFullYear();
  const rest = `${pad(date.getUTCMonth() + 1, 2)}${pad(date.getUTCDate(), 2)}${pad(date.getUTCHours(), 2)}${pad(date.getUTCMinutes(), 2)}${pad(date.getUTCSeconds(), 2)}Z`;
  if (year >= 1950 && year < 2050) return tlv(TAG.utcTime, Buffer.from(`${pad(year % 100, 2)}${rest}`, 'ascii'));
  return tlv(TAG.generalizedTime, Buffer.from(`${pad(year, 4)}${rest}`, 'ascii'));
}

/** One TLV read from `bytes` at `offset`: its tag, content and where the next one starts. */
export interface ReadTlv {
  tag: number;
  content: Buffer;
  end: number;
}

export function readTlv(bytes: Buffer, offset = 0): ReadTlv {
  const tag = bytes[offset];
  let lengthByte = bytes[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new RangeError('DER: truncated');
  let cursor = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw new RangeError('DER: unsupported length');
    length = 0;
    for (let i = 0; i < count; i++) {
      lengthByte = bytes[cursor++];
      if (lengthByte === undefined) throw new RangeError('DER: truncated');
      length = length * 256 + lengthByte;
    }
  }
  if (cursor + length > bytes.length) throw new RangeError('DER: truncated');
  return { tag, content: bytes.subarray(cursor, cursor + length), end: cursor + length };
}
