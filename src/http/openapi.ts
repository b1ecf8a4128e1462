import { toOpenAPISchema } from '@elysiajs/openapi';
import { toJsonSchema } from '@valibot/to-json-schema';
import type { AnyElysia } from 'elysia';
import type { GenericSchema } from 'valibot';
import { PANEL_VERSION } from '../version.ts';

/** valibot -> JSON Schema; pieces JSON Schema cannot express (transforms) are left out, not fatal. */
const valibotToJsonSchema = (schema: GenericSchema) => toJsonSchema(schema, { errorMode: 'ignore' });

interface RouteLike {
  method: string;
  path: string;
  hooks?: { body?: unknown; detail?: { hide?: boolean } };
}

const info = {
  title: 'Panel API',
  version: PANEL_VERSION,
  description:
    'Self-hosted deployment control plane. Errors share one body: {"error": {"code", "message", "path"?, "requestId"}}. ' +
    'Request bodies are application/json only. WebSocket namespaces: /ws/client/v1, /ws/developer/v1, /ws/daemon/v1.',
};

/**
 * The OpenAPI 3.1 document of every route of `app`. Built by @elysiajs/openapi, then one fix:
 * the server parses bodies with its own bounded JSON parser (src/http/plugins/request.ts), which
 * the generator cannot see, so each body schema is put back under application/json here.
 */
export function buildOpenApiDocument(app: AnyElysia) {
  const generated = toOpenAPISchema(app, { staticFile: true }, undefined, { valibot: valibotToJsonSchema }, '3.1.2');
  // Collection routes are declared as `/` under a prefix; the API documents them without the slash.
  // WebSocket routes (method "ws") are not OpenAPI operations; the description lists them instead.
  const paths = Object.fromEntries(
    Object.entries(generated.paths)
      .map(([path, item]) => [toOpenApiPath(path), Object.fromEntries(Object.entries(item ?? {}).filter(([method]) => method !== 'ws'))] as const)
      .filter(([, item]) => Object.keys(item).length > 0),
  );
  describeErrorResponses(paths);
  for (const route of app.routes as RouteLike[]) {
    const body = route.hooks?.body as GenericSchema | undefined;
    if (!body || route.hooks?.detail?.hide) continue;
    const operation = paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()] as { requestBody?: unknown } | undefined;
    if (!operation) continue;
    operation.requestBody = { required: true, content: { 'application/json': { schema: valibotToJsonSchema(body) as never } } };
  }
  return { openapi: '3.1.2', info, paths, components: generated.components };
}

type Operation = { responses?: Record<string, { description?: string; content?: Record<string, { schema?: { description?: string } }> }> };

/** An error response says which codes it carries (errorResponses puts them on its schema). */
function describeErrorResponses(paths: Record<string, Record<string, unknown>>): void {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item) as Operation[]) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const description = response.content?.['application/json']?.schema?.description;
        if (Number(status) >= 400 && description) response.description = description;
      }
    }
  }
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1');
