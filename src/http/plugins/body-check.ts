/**
 * Request bodies are checked against their route's schema while they are parsed. Elysia answers
 * a body its schema refuses by first building an error message that pretty-prints the whole body
 * and the failing value (measured: 1 MB of array took 1 s, the same nested 61 deep 8 s, on the
 * event loop, unauthenticated), and only then does our error mapping run.
 *
 * So a refused body never reaches Elysia's validation: the parser remembers the refusal and hands
 * on a marker instead, which the route's schema refuses at its usual place (after the transform
 * hooks such as the install gate, before the handler), cheaply; the error mapping then answers
 * the remembered refusal. An accepted body is validated once more by Elysia (microseconds), which
 * also gives the handler the schema's output.
 */
import * as v from 'valibot';
import { DomainError } from '../../lib/errors.ts';

type Issue = { message?: string; kind?: string; received?: string; path?: readonly { key?: unknown }[] };

/** 422 validation_failed for the first issue, with its path as dotted keys ('' for the root). */
export function validationFailure(issue: Issue | undefined): DomainError {
  const keys = issue?.path?.map((item) => item.key).filter((key) => typeof key === 'string' || typeof key === 'number') ?? [];
  // A missing field says so; valibot's own message would name the type it expected.
  const missing = issue?.kind === 'schema' && issue.received === 'undefined';
  return new DomainError('validation_failed', missing ? 'is required' : (issue?.message ?? 'request does not match the schema'), keys.join('.'));
}

interface RouteWithBody {
  method: string;
  path: string;
  hooks?: { body?: unknown };
}

/** What the parser hands on for a refused body: no JSON value, so no body schema accepts it. */
const REFUSED_BODY = Symbol('refused request body');
const refusals = new WeakMap<Request, DomainError>();

/** The refusal the parser recorded for this request's body, if any. */
export const bodyRefusalOf = (request: Request): DomainError | undefined => refusals.get(request);

const isValibot = (schema: unknown): schema is v.GenericSchema =>
  typeof schema === 'object' && schema !== null && (schema as { '~standard'?: { vendor?: string } })['~standard']?.vendor === 'valibot';

/**
 * A checker over an app's routes (`routes` is read again whenever it grew: tests add routes). It
 * answers the body to hand on: `body` itself, or the marker after recording the refusal.
 */
export function bodyChecker(routes: () => readonly RouteWithBody[]) {
  let known = -1;
  let schemas = new Map<string, v.GenericSchema>();
  return (request: Request, route: string, body: unknown): unknown => {
    const current = routes();
    if (current.length !== known) {
      schemas = new Map(current.filter((r) => isValibot(r.hooks?.body)).map((r) => [`${r.method} ${r.path}`, r.hooks!.body as v.GenericSchema]));
      known = current.length;
    }
    const schema = schemas.get(`${request.method} ${route}`);
    if (!schema) return body;
    const result = v.safeParse(schema, body, { abortEarly: true });
    if (result.success) return body;
    const refusal = validationFailure(result.issues[0]);
    // A schema that took the marker would let the handler run: refuse right here instead.
    if (v.is(schema, REFUSED_BODY)) throw refusal;
    refusals.set(request, refusal);
    return REFUSED_BODY;
  };
}
