/**
 * H1 of the security review: a 20 KB deeply nested JSON body to an unauthenticated route blocked
 * the event loop for seconds (Elysia pretty-printed the refused body) and deeper ones answered
 * 500. Bodies nesting deeper than MAX_JSON_DEPTH are refused before parsing, and no refused body
 * is ever serialized to describe the refusal. (The latency under a flood is measured by
 * scripts/bench/deep-json.ts; tests never time.)
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { createTestApp } from '../../../test/harness.ts';
import { originOf } from '../../../test/identity.ts';
import { JsonDepthGauge, MAX_JSON_DEPTH } from './request.ts';

const UNAUTHENTICATED_ROUTES = ['/api/daemon/v1/enroll', '/api/client/v1/auth/sign-in', '/api/install/v1/complete'];

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** Feeds `text` in chunks of `size` bytes; true once a chunk went too deep. */
function tooDeep(text: string, max: number, size = 7): boolean {
  const gauge = new JsonDepthGauge(max);
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) if (gauge.feed(bytes.subarray(at, at + size))) return true;
  return false;
}

describe('JsonDepthGauge', () => {
  test('counts arrays and objects, exactly at the limit and one beyond, across chunk borders', () => {
    for (const nested of [nestedArrays, nestedObjects]) {
      for (const size of [1, 7, 1 << 16]) {
        expect(tooDeep(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH, size)).toBe(false);
        expect(tooDeep(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH, size)).toBe(true);
      }
    }
    expect(tooDeep(`[${'[1],'.repeat(10_000)}[]]`, 2)).toBe(false);
  });

  test('brackets inside strings do not count, escaped quotes and backslashes included, in any encoding width', () => {
    const inString = JSON.stringify({ yaml: `${'['.repeat(500)} \\" \\ ü€😀 ${'{'.repeat(500)}"` });
    for (const size of [1, 2, 3, 1 << 16]) expect(tooDeep(inString, 3, size)).toBe(false);
    // An escaped backslash ends the escape: the quote after it closes the string.
    for (const size of [1, 1 << 16]) expect(tooDeep(`{"a":"\\\\",${'['.repeat(5)}${']'.repeat(5)}}`, 5, size)).toBe(true);
  });
});

describe('deeply nested bodies', () => {
  test('are refused with 400 invalid_json on every unauthenticated route, never 500', async () => {
    const t = createTestApp();
    for (const path of UNAUTHENTICATED_ROUTES) {
      for (const body of [nestedArrays(10_000), nestedObjects(3_000), `{"token":${nestedArrays(100_000)}}`, nestedArrays(MAX_JSON_DEPTH + 1)]) {
        const res = await t.request('POST', path, body, originOf(t));
        expect(res.status).toBe(400);
        expect(res.json.error).toMatchObject({ code: 'invalid_json', message: `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` });
      }
    }
  });

  test('are refused as soon as the chunk that goes too deep arrives, without waiting for the rest', async () => {
    const t = createTestApp();
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        // The first chunk goes too deep; later ones would never end.
        controller.enqueue(new TextEncoder().encode(pulls++ === 0 ? '['.repeat(MAX_JSON_DEPTH + 1) : '1,'));
      },
    });
    const res = await t.app.handle(
      new Request('http://localhost/api/daemon/v1/enroll', { method: 'POST', body: endless, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit),
    );
    expect(res.status).toBe(400);
    expect(pulls).toBeLessThan(5);
  });

  test('a body at the limit is parsed and validated as usual', async () => {
    const t = createTestApp();
    const res = await t.request('POST', '/api/daemon/v1/enroll', `{"token":${nestedArrays(MAX_JSON_DEPTH - 1)}}`);
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'validation_failed', path: 'token' });
  });
});

describe('a refused body', () => {
  const stringify = JSON.stringify;
  afterEach(() => {
    JSON.stringify = stringify;
  });

  test('is answered with the first issue and its path, and is never serialized to describe the refusal', async () => {
    const t = createTestApp();
    const wide = `{"token":${'['.repeat(40)}[${'1,'.repeat(50_000)}1]${']'.repeat(40)},"hostname":"h"}`;
    let largest = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      const text = stringify(...args);
      largest = Math.max(largest, text?.length ?? 0);
      return text;
    }) as typeof JSON.stringify;
    const res = await t.request('POST', '/api/daemon/v1/enroll', wide);
    JSON.stringify = stringify;
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'validation_failed', path: 'token' });
    // Elysia's own description pretty-printed it: megabytes for this 100 KB body.
    expect(largest).toBeLessThan(wide.length / 10);
  });

  test('still answers after the transform hooks: before the install, 503 comes first', async () => {
    const t = createTestApp();
    const res = await t.request('POST', '/api/client/v1/auth/sign-in', { email: ['not', 'a', 'string'] }, originOf(t));
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe('install_required');
  });
});
