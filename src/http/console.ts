/**
 * The console: the single-page app in web/, served at `/` and at every client-side route.
 *
 * Bundling: web/index.html is an HTML import, bundled with code splitting, so each `import()` in
 * the console (web/src/lazy.tsx: the signed-in pages, the Compose editor, the QR encoder) is a
 * chunk the first page does not wait for. Inside the executable (`bun build --compile
 * --splitting`) Bun has already bundled it and `files` lists the embedded outputs; from source
 * (`npm start`, `bun test`) there is no `files`, so the same HTML is bundled with Bun.build on
 * the first request. Either way the outputs are read into memory, each gzipped once at its first
 * request, and served at the root under their hashed names as immutable; the page gets a strict
 * Content-Security-Policy.
 *
 * The page carries a per-request nonce (meta `csp-nonce`): CodeMirror injects its styles in a
 * <style> element and passes the nonce on; scripts are never inline (script-src 'self').
 */
import type { HTMLBundle } from 'bun';
import { Elysia } from 'elysia';
import { basename } from 'node:path';
import consolePage from '../../web/index.html';
import { DomainError } from '../lib/errors.ts';

/** Written in web/index.html where the per-request nonce goes. */
const NONCE_PLACEHOLDER = '__CSP_NONCE__';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const COMPRESSIBLE = /^(text\/|application\/(javascript|json)|image\/svg)/;

export interface OutputFile {
  name: string;
  contentType: string;
  body: Uint8Array<ArrayBuffer>;
}

interface ConsoleAsset extends OutputFile {
  /** The gzipped body, made at the first request that accepts it; null when gzip does not pay. */
  gzipped(): Uint8Array<ArrayBuffer> | null;
  etag: string;
}

export interface ConsoleBundle {
  /** The page split around the nonce placeholder, asset references already absolute. */
  page: [before: string, after: string];
  assets: Map<string, ConsoleAsset>;
}

/** The bundler's outputs: embedded in the executable, or built now from web/ when run from source. */
async function outputFiles(html: HTMLBundle): Promise<OutputFile[]> {
  if (html.files) {
    return Promise.all(
      html.files.map(async (file) => ({
        name: basename(file.path),
        contentType: file.headers['content-type'],
        body: await Bun.file(file.path).bytes(),
      })),
    );
  }
  const result = await Bun.build({ entrypoints: [html.index], target: 'browser', minify: true, splitting: true });
  if (!result.success) throw new AggregateError(result.logs, `${html.index} does not bundle`);
  return Promise.all(
    result.outputs.map(async (output) => ({ name: basename(output.path), contentType: output.type, body: new Uint8Array(await output.arrayBuffer()) })),
  );
}

const isHtml = (file: OutputFile) => file.contentType.startsWith('text/html');

/**
 * Each asset is compressed when first asked for, not all of them at the first page view: most
 * visits never load the Compose editor's chunk, and gzip at level 9 of the whole bundle held the
 * first page for its CPU time and kept the copies in memory (docs/PERFORMANCE.md).
 */
function toAsset(file: OutputFile): ConsoleAsset {
  let compressed: Uint8Array<ArrayBuffer> | null | undefined = COMPRESSIBLE.test(file.contentType) ? undefined : null;
  const gzipped = () => {
    if (compressed === undefined) {
      const packed = Bun.gzipSync(file.body, { level: 9 });
      compressed = packed.byteLength < file.body.byteLength ? packed : null;
    }
    return compressed;
  };
  return { ...file, gzipped, etag: `"${Bun.hash(file.body).toString(36)}"` };
}

/**
 * The page and its assets (scripts, chunks, styles). The page refers to an asset as "./name"
 * (Bun.build) or "/name" (inside the executable); "/name" holds on every client-side route.
 */
export function assembleBundle(files: OutputFile[]): ConsoleBundle {
  const html = files.find(isHtml);
  if (!html) throw new Error('the console bundle has no HTML page');
  const assetFiles = files.filter((file) => file !== html);
  const assets = new Map(assetFiles.map((file) => [file.name, toAsset(file)]));
  if (assets.size !== assetFiles.length) throw new Error('two console files share a name');
  let text = new TextDecoder().decode(html.body);
  for (const name of assets.keys()) text = text.replaceAll(`"./${name}"`, `"/${name}"`);
  const [before, after, ...rest] = text.split(NONCE_PLACEHOLDER);
  if (before === undefined || after === undefined || rest.length > 0) throw new Error(`web/index.html must hold ${NONCE_PLACEHOLDER} once`);
  return { page: [before, after], assets };
}

export async function loadConsoleBundle(): Promise<ConsoleBundle> {
  return assembleBundle(await outputFiles(consolePage));
}

/** Scripts from this origin only, never inline; styles from this origin or carrying the nonce. */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function pageResponse(bundle: ConsoleBundle): Response {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  return new Response(bundle.page.join(nonce), {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': contentSecurityPolicy(nonce),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'cross-origin-opener-policy': 'same-origin',
    },
  });
}

function assetResponse(asset: ConsoleAsset, request: Request): Response {
  const headers: Record<string, string> = {
    'content-type': asset.contentType,
    'cache-control': IMMUTABLE,
    etag: asset.etag,
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  };
  if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
  const gzipped = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '') ? asset.gzipped() : null;
  if (gzipped) return new Response(gzipped, { headers: { ...headers, 'content-encoding': 'gzip' } });
  return new Response(asset.body, { headers });
}

const noSuchRoute = () => new DomainError('not_found', 'no such route');
const isApiPath = (path: string) => /^\/(api|ws)(\/|$)/.test(path);
/** A path naming a file (the last segment has an extension) is never a client-side route. */
const isFilePath = (path: string) => /\.[A-Za-z0-9]+$/.test(path);

/** One bundle per process, loaded on first use (the TCP and unix-socket apps share it). */
let bundle: Promise<ConsoleBundle> | undefined;
function loadedBundle(): Promise<ConsoleBundle> {
  bundle ??= loadConsoleBundle().catch((error) => {
    bundle = undefined; // a failed bundle (a syntax error while editing web/) is retried
    throw error;
  });
  return bundle;
}

/**
 * Mounted after the API surfaces: a GET that no API route took gets a bundle file or the page
 * (history API fallback), except under /api and /ws, whose unknown paths keep answering the
 * JSON 404, and for unknown file names.
 */
export const consoleRoutes = new Elysia({ name: 'console' }).get(
  '/*',
  async ({ request }) => {
    const path = new URL(request.url).pathname;
    if (isApiPath(path)) throw noSuchRoute();
    const loaded = await loadedBundle();
    const asset = loaded.assets.get(path.slice(1));
    if (asset) return assetResponse(asset, request);
    if (isFilePath(path)) throw noSuchRoute();
    return pageResponse(loaded);
  },
  { detail: { hide: true } },
);
