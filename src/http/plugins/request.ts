import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';

/** Request ids live beside the Request object, so every hook (including onError) can read them. */
const requestIds = new WeakMap<Request, string>();

export function assignRequestId(request: Request): string {
  const id = newId();
  requestIds.set(request, id);
  return id;
}

export function requestIdOf(request: Request): string {
  return requestIds.get(request) ?? 'unknown';
}

export const payloadTooLarge = (limit: number) =>
  new DomainError('payload_too_large', `request body is larger than ${limit} bytes`);

/** Deepest nesting of arrays and objects a request body may have; no API schema comes close. */
export const MAX_JSON_DEPTH = 64;

const tooDeep = () => new DomainError('invalid_json', `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);

/**
 * Follows the nesting of JSON text fed to it in chunks of UTF-8 bytes (a multi-byte character
 * never contains an ASCII byte, so brackets and quotes are found byte by byte); brackets inside
 * strings do not count. `feed` answers true once the nesting went deeper than `max`.
 */
export class JsonDepthGauge {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly max: number) {}

  feed(bytes: Uint8Array): boolean {
    let { depth, inString, escaped } = this;
    for (let index = 0; index < bytes.length; index++) {
      const byte = bytes[index]!;
      if (escaped) escaped = false;
      else if (inString) {
        if (byte === 0x5c) escaped = true;
        else if (byte === 0x22) inString = false;
      } else if (byte === 0x22) inString = true;
      else if (byte === 0x7b || byte === 0x5b) {
        if (++depth > this.max) return true;
      } else if (byte === 0x7d || byte === 0x5d) depth--;
    }
    Object.assign(this, { depth, inString, escaped });
    return false;
  }
}

/**
 * Reads at most `limit` bytes of the body, refusing early on a declared Content-Length and
 * while streaming otherwise (a chunked upload cannot slip past the cap). With a gauge, a body
 * nesting too deep is refused as soon as the chunk that goes too deep arrives, unread beyond it.
 */
async function readBoundedText(request: Request, limit: number, gauge: JsonDepthGauge | null): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw payloadTooLarge(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw payloadTooLarge(limit);
    }
    if (gauge?.feed(value)) {
      await reader.cancel();
      throw tooDeep();
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

const JSON_MEDIA_TYPE = /^application\/([a-z.+-]*\+)?json\b/i;

/**
 * The API speaks JSON only. A body in any other media type is refused, which also closes the
 * door on cross-site form posts (they cannot send application/json without a CORS preflight).
 * A body nesting deeper than MAX_JSON_DEPTH is refused while it is read, before any parsing: it
 * is cheap to send (20 KB reach depth 10 000) and was costly downstream (validating it and
 * describing the refusal blocked the event loop for seconds; deeper ones overflowed the stack).
 */
export async function parseJsonBody(request: Request, contentType: string, limit: number): Promise<unknown> {
  const isJson = JSON_MEDIA_TYPE.test(contentType);
  const text = await readBoundedText(request, limit, isJson ? new JsonDepthGauge(MAX_JSON_DEPTH) : null);
  if (text === '') return undefined;
  if (!isJson) throw new DomainError('unsupported_media_type', 'request bodies must be application/json');
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'request body is not valid JSON');
  }
}
