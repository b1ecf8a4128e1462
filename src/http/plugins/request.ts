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

/**
 * Reads at most `limit` bytes of the body, refusing early on a declared Content-Length and
 * while streaming otherwise (a chunked upload cannot slip past the cap).
 */
export async function readBoundedText(request: Request, limit: number): Promise<string> {
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
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

/**
 * The API speaks JSON only. A body in any other media type is refused, which also closes the
 * door on cross-site form posts (they cannot send application/json without a CORS preflight).
 */
export async function parseJsonBody(request: Request, contentType: string, limit: number): Promise<unknown> {
  const text = await readBoundedText(request, limit);
  if (text === '') return undefined;
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(contentType)) {
    throw new DomainError('unsupported_media_type', 'request bodies must be application/json');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'request body is not valid JSON');
  }
}
