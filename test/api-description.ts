/**
 * Every answer the API test suite gets is checked against the API description (issue 14: "an
 * API description clients can trust"): test/harness.ts hands each response of `request()` here.
 * A documented operation must document the status it answered, and a JSON answer must match the
 * schema documented for that status (JSON Schema 2020-12, as OpenAPI 3.1 means it). Routes the
 * description does not list (the console, WebSockets, an unknown path) or that declare no answer
 * (routes a test adds) are not checked here.
 *
 * A success answer Elysia does not check as it leaves (src/http/present.ts, describedAnswer) must
 * also pass its valibot schema unchanged: a key the schema would strip or a value it would
 * transform means the presenter and the schema disagree.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import type { AnyElysia } from 'elysia';
import * as v from 'valibot';
import { buildOpenApiDocument } from '../src/http/openapi.ts';
import { answerSchemaOf } from '../src/http/present.ts';

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}
interface Matcher {
  method: string;
  template: string;
  pattern: RegExp;
  operation: Operation;
}
interface Described {
  matchers: Matcher[];
  validators: Map<string, ValidateFunction | null>;
  /** `METHOD /template` -> the route's declared answer schemas by status. */
  answers: Map<string, Record<string, v.GenericSchema>>;
}

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
/** One description per set of routes (apps with the same routes describe the same API). */
const described = new Map<string, Described>();

function describe(app: AnyElysia): Described {
  const key = (app.routes as { method: string; path: string }[]).map((route) => `${route.method} ${route.path}`).join('\n');
  let found = described.get(key);
  if (!found) {
    const document = buildOpenApiDocument(app, { publicUrl: 'http://localhost' });
    const matchers: Matcher[] = [];
    for (const [template, item] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(item)) matchers.push({ method: method.toUpperCase(), template, pattern, operation: operation as Operation });
    }
    const answers = new Map<string, Record<string, v.GenericSchema>>();
    for (const route of app.routes as { method: string; path: string; hooks?: { response?: Record<string, v.GenericSchema> } }[]) {
      const template = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1');
      if (route.hooks?.response && !('~standard' in route.hooks.response)) answers.set(`${route.method} ${template}`, route.hooks.response);
    }
    found = { matchers, validators: new Map(), answers };
    described.set(key, found);
  }
  return found;
}

/** The mismatch between an answer and its description, or null when it matches (or is not described). */
export function undocumented(app: AnyElysia, method: string, url: string, status: number, contentType: string | null, json: unknown): string | null {
  const path = new URL(url, 'http://localhost').pathname;
  const { matchers, validators, answers } = describe(app);
  const matcher = matchers.find((candidate) => candidate.method === method && candidate.pattern.test(path));
  // Routes tests add without any declared answer are not part of the API description's promise.
  if (!matcher || !Object.keys(matcher.operation.responses ?? {}).some((code) => Number(code) < 400)) return null;
  const where = `${method} ${matcher.template} answered ${status}`;
  const response = matcher.operation.responses?.[String(status)];
  if (!response) return `${where}, which its description does not list`;
  if (json === undefined || !contentType?.includes('json')) return null;
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return `${where} with a JSON body its description does not give`;
  const key = `${method} ${matcher.template} ${status}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  if (validate?.(json)) return uncheckedMismatch(answers.get(`${method} ${matcher.template}`)?.[String(status)], json, where);
  const first = validate?.errors?.[0];
  return `${where} with a body its description refuses: ${first?.instancePath || '(root)'} ${first?.message} ${JSON.stringify(first?.params)} in ${JSON.stringify(json).slice(0, 400)}`;
}

/** A described-only answer (not checked as it leaves) that its valibot schema refuses or would change. */
function uncheckedMismatch(declared: v.GenericSchema | undefined, json: unknown, where: string): string | null {
  if (!declared || answerSchemaOf(declared) === declared) return null;
  const result = v.safeParse(answerSchemaOf(declared), json);
  if (!result.success) return `${where} with a body its schema refuses: ${v.summarize(result.issues)}`;
  if (!Bun.deepEquals(result.output, json)) return `${where} with a body its schema would change: ${JSON.stringify(json).slice(0, 400)} -> ${JSON.stringify(result.output).slice(0, 400)}`;
  return null;
}
