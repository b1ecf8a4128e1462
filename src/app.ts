import { Elysia } from 'elysia';
import { consoleRoutes } from './http/console.ts';
import { toErrorResponse } from './http/errors.ts';
import { healthRoutes } from './http/health.ts';
import { buildOpenApiDocument } from './http/openapi.ts';
import { bodyChecker, bodyRefusalOf } from './http/plugins/body-check.ts';
import { assignRequestId, parseJsonBody, requestIdOf } from './http/plugins/request.ts';
import { assignClientAddress } from './http/plugins/client-address.ts';
import { applySecurityHeaders } from './http/plugins/security-headers.ts';
import { referenceRoutes } from './http/reference.ts';
import { daemonSurfaces, surfaces } from './http/surfaces.ts';
import type { AppDeps } from './deps.ts';

/**
 * Builds one server instance. `panel serve` builds two from this factory (TCP and the daemon
 * unix socket) because one Elysia instance listening twice breaks WebSocket on the first. The
 * unix-socket instance is the local daemon slot: health, the API description and the daemon
 * surfaces only, which also keeps it cheap to build at start.
 */
export function buildApp(deps: AppDeps) {
  const { config, logger } = deps;
  let openApiDocument: { routes: number; document: ReturnType<typeof buildOpenApiDocument> } | undefined;
  const checkBody = bodyChecker(() => app.routes);
  const app = new Elysia({ name: 'panel', normalize: false })
    .onRequest(({ request, server, set }) => {
      set.headers['x-request-id'] = assignRequestId(request);
      assignClientAddress(request, server, config);
      applySecurityHeaders(set.headers, config);
    })
    .onAfterResponse({ as: 'global' }, ({ request, set }) => {
      // The path only: query strings may carry tokens (OAuth callbacks, invitations).
      logger.info('request', { requestId: requestIdOf(request), method: request.method, path: new URL(request.url).pathname, status: set.status });
    })
    .onParse({ as: 'global' }, async ({ request, contentType, route }) => {
      const body = await parseJsonBody(request, contentType, config.maxBodyBytes);
      return body === undefined ? undefined : checkBody(request, route, body);
    })
    .onError({ as: 'global' }, ({ error, code, request, set }) => {
      const requestId = requestIdOf(request);
      // A body the parser refused failed Elysia's validation on a marker: answer the real refusal.
      const refusal = code === 'VALIDATION' ? bodyRefusalOf(request) : undefined;
      const { status, headers, body } = toErrorResponse(refusal ?? error, code, requestId, logger);
      set.status = status;
      Object.assign(set.headers, headers);
      set.headers['x-request-id'] = requestId;
      set.headers['content-type'] = 'application/json';
      return body;
    })
    .use(healthRoutes(deps))
    .use(referenceRoutes)
    .use(deps.listener === 'unix' ? daemonSurfaces(deps) : surfaces(deps));

  const describeApi = () => {
    // Built on first request and again only when routes were added since (tests add routes).
    if (openApiDocument?.routes !== app.routes.length) openApiDocument = { routes: app.routes.length, document: buildOpenApiDocument(app, { publicUrl: config.publicUrl }) };
    return openApiDocument.document;
  };
  const described = app.get('/api/openapi.json', describeApi, { detail: { hide: true } });
  return deps.listener === 'unix' ? described : described.use(consoleRoutes);
}

export type App = ReturnType<typeof buildApp>;
