import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import * as v from 'valibot';
import { createTestApp } from '../../test/harness.ts';
import { PANEL_VERSION } from '../version.ts';

describe('health', () => {
  test('answers 200 with status and version', async () => {
    const { request } = createTestApp();
    const res = await request('GET', '/api/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok', version: PANEL_VERSION });
  });

  test('answers 503 when the database cannot answer', async () => {
    const { request, sqlite } = createTestApp();
    sqlite.close();
    const res = await request('GET', '/api/health');
    expect(res.status).toBe(503);
    expect(res.json.status).toBe('unavailable');
  });
});

describe('API description', () => {
  test('openapi.json is OpenAPI 3.1 and lists the health probe', async () => {
    const { request } = createTestApp();
    const res = await request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json.openapi).toMatch(/^3\.1\.\d+$/);
    expect(res.json.info.title).toBe('Panel API');
    expect(res.json.paths['/api/health'].get).toBeDefined();
  });

  test('the reference viewer is served locally and points at /api/openapi.json', async () => {
    const { request } = createTestApp();
    const page = await request('GET', '/api/reference');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('"url":"/api/openapi.json"');
    expect(page.text).not.toMatch(/https?:\/\//);
    // No cloud features: the AI agent, MCP and the developer toolbar (Share, Deploy) are off.
    for (const off of ['"agent":{"disabled":true}', '"mcp":{"disabled":true}', '"showDeveloperTools":"never"', '"telemetry":false']) expect(page.text).toContain(off);
    const bundle = await request('GET', '/api/reference/scalar.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
  });

  test('the viewer bundle is sent gzipped to a client that accepts it, and unpacks to the same script', async () => {
    const { app } = createTestApp();
    const plain = await app.handle(new Request('http://localhost/api/reference/scalar.js'));
    const packed = await app.handle(new Request('http://localhost/api/reference/scalar.js', { headers: { 'accept-encoding': 'gzip, br' } }));
    expect(packed.headers.get('content-encoding')).toBe('gzip');
    const packedBytes = new Uint8Array(await packed.arrayBuffer());
    const plainBytes = new Uint8Array(await plain.arrayBuffer());
    expect(packedBytes.byteLength).toBeLessThan(plainBytes.byteLength / 2);
    expect(Bun.gunzipSync(packedBytes)).toEqual(plainBytes);
  });
});

describe('one error body', () => {
  const withEchoRoute = (maxBodyBytes?: number) => {
    const harness = createTestApp(maxBodyBytes ? { maxBodyBytes } : {});
    harness.app.use(
      new Elysia().post('/api/client/v1/test-echo', ({ body }) => body, {
        body: v.object({ name: v.pipe(v.string(), v.minLength(2)), nested: v.optional(v.object({ port: v.number() })) }),
      }),
    );
    return harness;
  };

  test('an unknown route answers 404 with the error body and the request id', async () => {
    const { request } = createTestApp();
    for (const path of ['/api/nope', '/api/client/v1/nothing-here', '/api/install/v1/x', '/api/daemon/v1/x']) {
      const res = await request('GET', path);
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('not_found');
      expect(res.json.error.requestId).toBe(res.headers.get('x-request-id')!);
    }
  });

  test('every response carries a fresh request id', async () => {
    const { request } = createTestApp();
    const a = await request('GET', '/api/health');
    const b = await request('GET', '/api/health');
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  test('malformed JSON answers 400 invalid_json', async () => {
    const { request } = withEchoRoute();
    const res = await request('POST', '/api/client/v1/test-echo', '{"name":');
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_json');
  });

  test('a body that fails validation answers 422 with the path of the field', async () => {
    const { request } = withEchoRoute();
    const res = await request('POST', '/api/client/v1/test-echo', { name: 'ok', nested: { port: 'x' } });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'validation_failed', path: 'nested.port' });
  });

  test('a body over the cap answers 413, declared or streamed', async () => {
    const { app, request } = withEchoRoute(64);
    const declared = await request('POST', '/api/client/v1/test-echo', { name: 'x'.repeat(100) });
    expect(declared.status).toBe(413);
    expect(declared.json.error.code).toBe('payload_too_large');
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"name":"${'y'.repeat(100)}"}`));
        controller.close();
      },
    });
    const streamed = await app.handle(
      new Request('http://localhost/api/client/v1/test-echo', { method: 'POST', body: stream, headers: { 'content-type': 'application/json' } }),
    );
    expect(streamed.status).toBe(413);
  });

  test('a non-JSON body answers 415', async () => {
    const { request } = withEchoRoute();
    const res = await request('POST', '/api/client/v1/test-echo', 'name=ab', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(res.json.error.code).toBe('unsupported_media_type');
  });

  test('an unexpected error answers 500 without its message', async () => {
    const { app, request } = createTestApp();
    app.use(new Elysia().get('/api/client/v1/test-boom', () => { throw new Error('secret detail'); }));
    const res = await request('GET', '/api/client/v1/test-boom');
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('internal_error');
    expect(res.text).not.toContain('secret detail');
  });
});

describe('access log', () => {
  test('each request is logged once with its request id, method, path and status, without the query', async () => {
    const lines: string[] = [];
    const { createLogger } = await import('../lib/logger.ts');
    const harness = createTestApp();
    const { buildApp } = await import('../app.ts');
    const app = buildApp({ ...harness.deps, logger: createLogger('info', (line) => lines.push(line)) });
    const res = await app.handle(new Request('http://localhost/api/nope?token=not-in-any-log'));
    await new Promise((resolve) => setImmediate(resolve)); // the hook runs after the response is handed over
    const entries = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
    expect(entries).toEqual([expect.objectContaining({ requestId: res.headers.get('x-request-id'), method: 'GET', path: '/api/nope', status: 404 })]);
    expect(lines.join('')).not.toContain('not-in-any-log');
  });
});

describe('OpenAPI completeness', () => {
  test('every API operation documents a success response and its error codes; bodies are application/json', async () => {
    const { request, app } = createTestApp();
    app.use(new Elysia().post('/api/client/v1/test-doc', ({ body }) => body, { body: v.object({ name: v.string() }) }));
    const doc = (await request('GET', '/api/openapi.json')).json;
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.length).toBeGreaterThan(2);
    for (const { path, method, operation } of operations) {
      expect(path.endsWith('/') && path !== '/').toBe(false);
      if (path.includes('test-doc')) {
        expect(Object.keys(operation.requestBody.content)).toEqual(['application/json']);
        continue;
      }
      const statuses = Object.keys(operation.responses ?? {});
      expect({ path, method, success: statuses.some((s) => /^[23]/.test(s)) }).toEqual({ path, method, success: true });
      if (path.startsWith('/api/client/v1/') && !path.startsWith('/api/client/v1/auth')) {
        expect({ path, method, documents401: statuses.includes('401') }).toEqual({ path, method, documents401: true });
      }
      if (operation.requestBody) expect(Object.keys(operation.requestBody.content)).toEqual(['application/json']);
    }
  });
});
