import { describe, expect, spyOn, test } from 'bun:test';
import { gunzipSync } from 'node:zlib';
import { createTestApp } from '../../test/harness.ts';
import { assembleBundle, loadConsoleBundle } from './console.ts';

/** The console adds its bundle to the executable; the issue caps that at 2 MB. */
const BUNDLE_BUDGET_BYTES = 2 * 1024 * 1024;
/** Sign-in and install must not wait for the signed-in pages, CodeMirror or the YAML parser. */
const FIRST_PAGE_SCRIPT_BUDGET_BYTES = 100 * 1024;

const assetPaths = (html: string) => [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]!);

describe('the console', () => {
  test('is served at / and at client-side routes, with a strict CSP and no inline script', async () => {
    const { request } = createTestApp();
    for (const path of ['/', '/sign-in', '/projects/0190a0b0-0000-7000-8000-000000000000']) {
      const page = await request('GET', path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      const nonce = page.text.match(/<meta name="csp-nonce" content="([^"]+)">/)![1]!;
      expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
      expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(page.text).not.toMatch(/https?:\/\//);
      expect(assetPaths(page.text).length).toBeGreaterThanOrEqual(2);
    }
  });

  test('gives every page load its own nonce', async () => {
    const { request } = createTestApp();
    const first = (await request('GET', '/')).headers.get('content-security-policy');
    const second = (await request('GET', '/')).headers.get('content-security-policy');
    expect(first).not.toBe(second);
  });

  test('serves hashed assets as immutable, gzipped when asked, and answers 304 to a known ETag', async () => {
    const { app, request } = createTestApp();
    const page = await request('GET', '/');
    const script = assetPaths(page.text).find((path) => path.endsWith('.js'))!;

    const plain = await request('GET', script);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toContain('javascript');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-encoding')).toBeNull();

    const gzipped = await app.handle(new Request(`http://localhost${script}`, { headers: { 'accept-encoding': 'gzip, br' } }));
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('vary')).toBe('accept-encoding');
    const body = new Uint8Array(await gzipped.arrayBuffer());
    expect(body.byteLength).toBeLessThan(plain.text.length / 2);
    expect(gunzipSync(body).toString()).toBe(plain.text);

    const etag = plain.headers.get('etag')!;
    const cached = await request('GET', script, undefined, { 'if-none-match': etag });
    expect(cached.status).toBe(304);
  });

  test('leaves unknown API, WebSocket and file paths to the JSON 404', async () => {
    const { request } = createTestApp();
    for (const path of ['/api', '/api/client/v1/nothing-here', '/ws/nothing', '/chunk-missing.js', '/projects/favicon.ico']) {
      const res = await request('GET', path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.json.error.code).toBe('not_found');
    }
  });

  test('refers to the assets from the root however the bundler referred to them', () => {
    const file = (name: string, contentType: string, text: string) => ({ name, contentType, body: new TextEncoder().encode(text) });
    const bundle = assembleBundle([
      file('index.html', 'text/html;charset=utf-8', '<meta content="__CSP_NONCE__"><link href="./a-1.css"><script src="/b-2.js"></script>'),
      file('a-1.css', 'text/css;charset=utf-8', 'p{}'),
      file('b-2.js', 'text/javascript;charset=utf-8', 'import("./c-3.js")'),
      file('c-3.js', 'text/javascript;charset=utf-8', 'y()'),
    ]);
    expect(bundle.page.join('N')).toBe('<meta content="N"><link href="/a-1.css"><script src="/b-2.js"></script>');
    expect([...bundle.assets.keys()]).toEqual(['a-1.css', 'b-2.js', 'c-3.js']);
  });

  test('compresses an asset at its first gzip request only, once', () => {
    const gzip = spyOn(Bun, 'gzipSync');
    try {
      const script = 'export const a = 1;\n'.repeat(200);
      const file = (name: string, contentType: string, text: string) => ({ name, contentType, body: new TextEncoder().encode(text) });
      const bundle = assembleBundle([file('index.html', 'text/html', '<meta content="__CSP_NONCE__">'), file('a-1.js', 'text/javascript', script), file('b-2.js', 'text/javascript', script)]);
      expect(gzip).toHaveBeenCalledTimes(0);
      const packed = bundle.assets.get('a-1.js')!.gzipped()!;
      expect(new TextDecoder().decode(Bun.gunzipSync(packed))).toBe(script);
      expect(bundle.assets.get('a-1.js')!.gzipped()).toBe(packed);
      expect(gzip).toHaveBeenCalledTimes(1);
    } finally {
      gzip.mockRestore();
    }
  });

  test('serves every chunk, and the first page loads only its own script and what that imports statically', async () => {
    const { request } = createTestApp();
    const bundle = await loadConsoleBundle();
    for (const name of bundle.assets.keys()) expect((await request('GET', `/${name}`)).status).toBe(200);
    const page = bundle.page.join('');
    const entry = page.match(/<script[^>]* src="\/([^"]+)"/)![1]!;
    const text = (name: string) => new TextDecoder().decode(bundle.assets.get(name)!.body);
    // Static imports ("import{a}from"./chunk.js"", "import"./chunk.js"") are loaded before the
    // page runs; dynamic ones (import("./chunk.js")) only when the console asks for them.
    const staticImports = (code: string) => [...code.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)].map((match) => match[1]!);
    const dynamicImports = (code: string) => [...code.matchAll(/import\(\s*"\.\/([^"]+\.js)"\s*\)/g)].map((match) => match[1]!);
    const firstPage = new Set([entry]);
    for (const name of firstPage) for (const imported of staticImports(text(name))) firstPage.add(imported);
    const firstPageBytes = [...firstPage].reduce((sum, name) => sum + bundle.assets.get(name)!.body.byteLength, 0);
    expect(firstPageBytes).toBeLessThan(FIRST_PAGE_SCRIPT_BUDGET_BYTES);

    const lazyChunks = [...firstPage].flatMap((name) => dynamicImports(text(name))).filter((name) => !firstPage.has(name));
    expect(lazyChunks.length).toBeGreaterThanOrEqual(1); // the signed-in pages
    const allScripts = [...bundle.assets.values()].filter((asset) => asset.contentType.startsWith('text/javascript'));
    const scriptBytes = allScripts.reduce((sum, asset) => sum + asset.body.byteLength, 0);
    expect(scriptBytes - firstPageBytes).toBeGreaterThan(FIRST_PAGE_SCRIPT_BUDGET_BYTES); // CodeMirror is not on the first page
  });

  test(`adds less than ${BUNDLE_BUDGET_BYTES / 1024 / 1024} MB to the executable`, async () => {
    const bundle = await loadConsoleBundle();
    const bytes = [...bundle.assets.values()].reduce((sum, asset) => sum + asset.body.byteLength, bundle.page.join('').length);
    expect(bytes).toBeLessThan(BUNDLE_BUDGET_BYTES);
  });
});
