import { toOpenAPISchema } from '@elysiajs/openapi';
import { toJsonSchema } from '@valibot/to-json-schema';
import type { AnyElysia } from 'elysia';
import type { GenericSchema } from 'valibot';
import { ERROR_CATALOG, type ErrorCode } from '../contract/errors.ts';
import { PANEL_VERSION } from '../version.ts';
import { guardOf, PUBLIC, ROLE_EXTENSION, type RouteRole, SECURITY_SCHEMES, type SecurityRequirement } from './plugins/security.ts';
import { errorResponses } from './schemas.ts';

/** valibot -> JSON Schema; pieces JSON Schema cannot express (transforms) are left out, not fatal. */
const valibotToJsonSchema = (schema: GenericSchema) => toJsonSchema(schema, { errorMode: 'ignore' });

interface RouteLike {
  method: string;
  path: string;
  hooks?: { body?: unknown; beforeHandle?: unknown; detail?: { hide?: boolean; security?: SecurityRequirement } };
}

type Json = Record<string, unknown>;
interface Response {
  description?: string;
  content?: Record<string, { schema?: Json }>;
}
interface Operation {
  security?: SecurityRequirement;
  requestBody?: unknown;
  responses?: Record<string, Response>;
  [key: string]: unknown;
}

const AUTHENTICATION = [
  'Authentication: the client surface takes the session cookie the sign-in routes set (`POST /api/client/v1/auth/sign-in`;',
  'cookie-authenticated writes need an `Origin` equal to Panel’s public URL) or an API token as `Authorization: Bearer`',
  '(`POST /api/client/v1/api-tokens`). Each operation names its security and, where it needs one, the organization role',
  '(`x-panel-role`). A server joins with a join token (it downloads the executable with it as Bearer and enrolls with it in',
  'the body); its daemon then uses the daemon credential enrollment answered, on `/ws/daemon/v1` only.',
].join(' ');

const info = {
  title: 'Panel API',
  version: PANEL_VERSION,
  description: [
    'Self-hosted deployment control plane. Errors share one body: {"error": {"code", "message", "path"?, "requestId"}};',
    'each operation lists the codes it can answer. Request bodies are application/json only.',
    'WebSocket namespaces: /ws/client/v1, /ws/developer/v1, /ws/daemon/v1.',
    AUTHENTICATION,
  ].join(' '),
};

/** What any operation with a JSON body can answer before its handler runs. */
const BODY_ERRORS: readonly ErrorCode[] = ['invalid_json', 'payload_too_large', 'unsupported_media_type', 'validation_failed'];

/**
 * The OpenAPI 3.1 document of every route of `app`, as @elysiajs/openapi generates it and then
 * completed: the security schemes and each operation's security (read off its guard), the
 * server, the request bodies under application/json (the server parses them itself, which the
 * generator cannot see; optional ones optional), the codes every JSON body or guard can answer,
 * error responses described from the catalog, and nullable enums that admit null.
 */
export function buildOpenApiDocument(app: AnyElysia, options: { publicUrl: string }) {
  const generated = toOpenAPISchema(app, { staticFile: true }, undefined, { valibot: valibotToJsonSchema }, '3.1.2');
  // Collection routes are declared as `/` under a prefix; the API documents them without the slash.
  // WebSocket routes (method "ws") are not OpenAPI operations; the description lists them instead.
  const paths = Object.fromEntries(
    Object.entries(generated.paths)
      .map(([path, item]) => [toOpenApiPath(path), Object.fromEntries(Object.entries(item ?? {}).filter(([method]) => method !== 'ws'))] as const)
      .filter(([, item]) => Object.keys(item).length > 0),
  ) as Record<string, Record<string, Operation>>;
  for (const route of app.routes as RouteLike[]) {
    const operation = paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!operation || route.hooks?.detail?.hide) continue;
    const guard = guardOf(route.hooks);
    operation.security = route.hooks?.detail?.security ?? guard?.security ?? PUBLIC;
    if (guard) addErrors(operation, route.method === 'GET' ? guard.errors : [...guard.errors, ...guard.writeErrors]);
    describeRole(operation);
    const body = route.hooks?.body as (GenericSchema & { type?: string }) | undefined;
    if (body) {
      const required = !['optional', 'undefinedable', 'nullish'].includes(body.type ?? '');
      operation.requestBody = { required, content: { 'application/json': { schema: valibotToJsonSchema(body) as never } } };
      addErrors(operation, BODY_ERRORS);
    }
  }
  for (const item of Object.values(paths)) for (const operation of Object.values(item)) describeErrorResponses(operation);
  repairSchemas(paths);
  return {
    openapi: '3.1.2',
    info,
    servers: [{ url: new URL(options.publicUrl).origin, description: 'This Panel (PANEL_PUBLIC_URL)' }],
    paths,
    components: { ...generated.components, securitySchemes: SECURITY_SCHEMES },
  };
}

const ROLE_NOTES: Record<RouteRole, string> = {
  self: "Acts on the caller's own account: any signed-in user, no organization role.",
  member: 'Needs the member role in the organization.',
  admin: 'Needs the admin role in the organization.',
  owner: 'Needs the owner role in the organization.',
};

/** The role a route declares (`role` on the route, src/http/plugins/guard.ts): said in words, and 403 where it is more than membership. */
function describeRole(operation: Operation): void {
  const role = operation[ROLE_EXTENSION] as RouteRole | undefined;
  if (!role) return;
  operation.description = [operation.description, ROLE_NOTES[role]].filter(Boolean).join(' ');
  if (role === 'admin' || role === 'owner') addErrors(operation, ['forbidden']);
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1');

/** Adds error codes to an operation's answers, merged into the response of their status. */
function addErrors(operation: Operation, codes: readonly ErrorCode[]): void {
  operation.responses ??= {};
  for (const [status, body] of Object.entries(errorResponses(...codes))) {
    const extra = valibotToJsonSchema(body) as Json;
    const content = operation.responses[status]?.content?.['application/json'];
    const existingCodes = codeEnum(content?.schema);
    if (!content?.schema || !existingCodes) {
      operation.responses[status] = { description: '', content: { 'application/json': { schema: extra } } };
      continue;
    }
    // A copy: the generator may share one schema object between operations.
    const merged = [...new Set([...existingCodes, ...(codeEnum(extra) ?? [])])] as ErrorCode[];
    const schema = structuredClone(content.schema);
    const code = ((schema.properties as Json).error as { properties: Json }).properties.code as Json;
    code.enum = merged;
    schema.description = describeCodes(merged);
    content.schema = schema;
  }
}

/** The `code` enum of an error body schema, when it has one. */
function codeEnum(schema: Json | undefined): string[] | undefined {
  const error = (schema?.properties as Json | undefined)?.error as Json | undefined;
  const code = (error?.properties as Json | undefined)?.code as Json | undefined;
  return Array.isArray(code?.enum) ? (code.enum as string[]) : undefined;
}

const describeCodes = (codes: readonly ErrorCode[]) => codes.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].when}`).join('; ');

/** An error response says which codes it carries (errorResponses puts them on its schema). */
function describeErrorResponses(operation: Operation): void {
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const description = response.content?.['application/json']?.schema?.description;
    if (Number(status) >= 400 && typeof description === 'string') response.description = description;
    else response.description ||= `Status ${status}`;
  }
}

/**
 * The generator turns `nullable(picklist)` into `{enum: [...], type: [..., "null"]}`, whose enum
 * then refuses the null it means to allow; and it leaves a `$schema` of draft-07 inside schemas
 * an OpenAPI 3.1 document reads as 2020-12. Both are put right, everywhere.
 */
function repairSchemas(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) repairSchemas(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Json;
  delete schema.$schema;
  // A new array: the generator shares enum arrays between schemas (and with the contract's own lists).
  if (Array.isArray(schema.enum) && Array.isArray(schema.type) && schema.type.includes('null') && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  for (const value of Object.values(schema)) repairSchemas(value);
}
