import { Elysia } from 'elysia';
import * as v from 'valibot';
// Embedded into the executable by `bun build --compile`; a plain path when run from source.
import scalarBundlePath from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js' with { type: 'file' };

/**
 * The interactive API reference, served entirely from the executable: the Scalar viewer's
 * standalone bundle and a page pointing it at /api/openapi.json explicitly (its default relative
 * URL resolves wrongly under /api/). Nothing in it reaches out: fonts and telemetry are off, and
 * so are the viewer's cloud features (the AI agent, MCP, the developer toolbar with Share and
 * Deploy) and the sidebar footer's links to the vendor (its hosted client, its site).
 * Authentication is explained by the description itself (its security schemes and the
 * introduction), which the viewer shows with a form to try a token or a cookie.
 */
const config = {
  url: '/api/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  // The sidebar footer's "Open API Client" leads to client.scalar.com with this Panel's
  // description URL; requests are tried in the page itself ("Test Request") instead.
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  authentication: { preferredSecurityScheme: 'apiToken' },
  // The footer's "Powered by Scalar" links to the vendor's site: not shown.
  customCss: 'a[href*="www.scalar.com"] { display: none; }',
};

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Panel API reference</title>
</head>
<body>
<div id="app"></div>
<script src="/api/reference/scalar.js"></script>
<script>
Scalar.createApiReference('#app', ${JSON.stringify(config)});
</script>
</body>
</html>`;

let gzippedBundle: Uint8Array<ArrayBuffer> | undefined;

export const referenceRoutes = new Elysia({ name: 'reference' })
  .get('/api/reference', () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
    response: { 200: v.pipe(v.string(), v.description('HTML page')) },
    detail: { summary: 'Interactive API reference viewer', tags: ['meta'] },
  })
  .get(
    '/api/reference/scalar.js',
    async ({ request }) => {
      const headers = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' };
      if (!(request.headers.get('accept-encoding') ?? '').includes('gzip')) {
        return new Response(Bun.file(scalarBundlePath), { headers });
      }
      // Compressed once on first use, so idle memory is not spent on it.
      gzippedBundle ??= Bun.gzipSync(await Bun.file(scalarBundlePath).bytes());
      return new Response(gzippedBundle, { headers: { ...headers, 'content-encoding': 'gzip' } });
    },
    { detail: { hide: true } },
  );
