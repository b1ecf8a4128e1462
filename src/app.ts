import { Elysia } from 'elysia';
import { consoleRoutes } from './http/console.ts';
import { toErrorResponse } from './http/errors.ts';
import { healthRoutes } from './http/health.ts';
import { prometheusRoutes } from './http/prometheus.ts';
import type { buildOpenApiDocument } from './http/openapi.ts';
import { bodyChecker, bodyRefusalOf } from './http/plugins/body-check.ts';
import { assignRequestId, parseJsonBody, requestIdOf } from './http/plugins/request.ts';
import { assignClientAddress } from './http/plugins/client-address.ts';
import { applySecurityHeaders } from './http/plugins/security-headers.ts';
import { referenceRoutes } from './http/reference.ts';
import { isCatchAll, loadEveryRouteGroup, wasHandedOn } from './http/route-groups.ts';
import { daemonSurfaces, surfaces } from './http/surfaces.ts';
import { backupMaker } from './ops/backups.ts';
import { diskFullMonitor } from './ops/disk-full.ts';
import type { AppDeps, ServingDeps } from './deps.ts';

/**
 * Builds one server instance. `panel serve` builds two from this factory (TCP and the daemon
 * unix socket) because one Elysia instance listening twice breaks WebSocket on the first. The
 * unix-socket instance is the local daemon slot: health, the API description and the daemon
 * surfaces only, which also keeps it cheap to build at start.
 */
export function buildApp(given: AppDeps) {
  const { config, logger } = given;
  // Filled in on the given object, not a copy: routes read deps when they run, and tests swap a
  // part (the executable, the local daemon's status) after building the app.
  given.diskFull ??= diskFullMonitor(config.dataDir, logger);
  given.backups ??= backupMaker(config, given.clock);
  const deps = given as ServingDeps;
  let openApiDocument: { routes: number; document: ReturnType<typeof buildOpenApiDocument> } | undefined;
  const started = new WeakMap<Request, number>();
  const checkBody = bodyChecker(() => app.routes);
  const app = new Elysia({ name: 'panel', normalize: false })
    .onRequest(({ request, server, set }) => {
      // A request a lazy surface hands on comes through here twice: its time runs from the first.
      if (!started.has(request)) started.set(request, performance.now());
      set.headers['x-request-id'] = assignRequestId(request);
      assignClientAddress(request, server, config);
      applySecurityHeaders(set.headers, config);
    })
    .onAfterResponse({ as: 'global' }, ({ request, set, route }) => {
      // A lazy surface's catch-all hands a request on to the routes it just loaded, which log and
      // count it; what it answers itself matched no route, labelled like the console's catch-all.
      const lazy = isCatchAll(route);
      if (lazy && wasHandedOn(request)) return;
      // The path only: query strings may carry tokens (OAuth callbacks, invitations).
      logger.info('request', { requestId: requestIdOf(request), method: request.method, path: new URL(request.url).pathname, status: set.status });
      const status = typeof set.status === 'number' ? set.status : 200;
      const begun = started.get(request);
      if (begun !== undefined) deps.hub.observe.http.observe(request.method, lazy ? '/*' : route || 'unmatched', status, (performance.now() - begun) / 1000);
    })
    .onParse({ as: 'global' }, async ({ request, contentType, route }) => {
      // A lazy surface's catch-all hands the request on with its body unread.
      if (isCatchAll(route)) return null;
      const body = await parseJsonBody(request, contentType, config.maxBodyBytes);
      return body === undefined ? undefined : checkBody(request, route, body);
    })
    .onError({ as: 'global' }, ({ error, code, request, set }) => {
      const requestId = requestIdOf(request);
      // A body the parser refused failed Elysia's validation on a marker: answer the real refusal.
      const refusal = code === 'VALIDATION' ? bodyRefusalOf(request) : undefined;
      const { status, headers, body } = toErrorResponse(refusal ?? error, code, requestId, logger, deps.diskFull);
      set.status = status;
      Object.assign(set.headers, headers);
      set.headers['x-request-id'] = requestId;
      set.headers['content-type'] = 'application/json';
      return body;
    })
    .use(healthRoutes(deps))
    .use(referenceRoutes)
    .use(deps.listener === 'unix' ? daemonSurfaces(deps) : surfaces(deps));

  const describeApi = async () => {
    await loadEveryRouteGroup(app);
    // Built on first request and again only when routes were added since (tests add routes); its
    // generators load with it: most installs never ask for the description.
    if (openApiDocument?.routes !== app.routes.length) {
      const { buildOpenApiDocument } = await import('./http/openapi.ts');
      openApiDocument = { routes: app.routes.length, document: buildOpenApiDocument(app, { publicUrl: config.publicUrl }) };
    }
    return openApiDocument.document;
  };
  const described = app.get('/api/openapi.json', describeApi, { detail: { hide: true } });
  return deps.listener === 'unix' ? described : described.use(prometheusRoutes(deps)).use(consoleRoutes);
}

export type App = ReturnType<typeof buildApp>;
