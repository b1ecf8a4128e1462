/**
 * Resource routes from one declaration. A CRUD resource names its collection, its contract
 * schemas (src/contract) and, per operation, the domain call, the codes it can answer and a
 * summary; this builds the routes with everything that is the same for every resource:
 *
 *   POST   /{collection}       create  201 answer       body    role admin
 *   GET    /{collection}       list    200 {data, nextCursor}    role member
 *   GET    /{collection}/:id   read    200 answer               role member
 *   PATCH  /{collection}/:id   update  200 answer       body    role admin
 *   DELETE /{collection}/:id   remove  204                      role admin
 *
 * The presenter is derived from the answer schema (present.ts), the caller is resolved by the
 * client guard before any of them runs, and the API description gets the statuses, the error
 * codes (the operation's own here; the guard's, the role's and the body's come from
 * src/http/openapi.ts), the role needed and the security. The role is the route's `role` (the
 * client guard's macro): `authorize` asks at least that of the caller, and the description shows it.
 * Actions (deploy, compose, tag sets, ...) stay explicit routes.
 */
import { type AnyElysia, Elysia } from 'elysia';
import * as v from 'valibot';
import { type GenericSchema } from 'valibot';
import { IdParams, listEnvelope, NoContent, type Page } from '../contract/common.ts';
import type { MembershipRole } from '../contract/enums.ts';
import type { ErrorCode } from '../contract/errors.ts';
import type { Actor } from '../domain/actor.ts';
import type { CacheableList } from '../domain/shared/cacheable-list.ts';
import { answerCache } from './answer-cache.ts';
import { type Derivations, describedAnswer, presenterOf } from './present.ts';
import { errorResponses } from './schemas.ts';

type Shape = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;
type Answer<S extends Shape> = v.InferOutput<S>;

interface Documented {
  summary: string;
  description?: string;
  /** Codes this operation answers beyond the guard's and its input's (409s, domain refusals). */
  errors?: readonly ErrorCode[];
  /** The organization role the operation needs (the route's `role`: src/http/plugins/guard.ts). */
  role?: MembershipRole;
}

type In<T extends GenericSchema> = v.InferOutput<T>;

export interface ResourceSpec<R extends object, S extends Shape, Q extends GenericSchema, C extends GenericSchema, U extends GenericSchema> {
  /** Path segment and OpenAPI tag: `projects` -> /projects, /projects/:id. */
  collection: string;
  /** The resource as answered (contract schema); the presenter follows it. */
  schema: S;
  /** Keys of the answer the row holds under another name, or computes (present.ts). */
  derive?: Derivations<S>;
  /** The guard resolving `actor` (clientGuard). */
  guard: AnyElysia;
  /**
   * `run`, or `cached`: a list whose page depends only on counted tables is answered from the
   * answer cache while they are unchanged, after the caller's authorization (answer-cache.ts).
   */
  list?: Documented & { query: Q } & ({ run: (actor: Actor, query: In<Q>) => Page<R> } | { cached: CacheableList<In<Q>, R> });
  /** `answer`: a wider answer than the resource's (a write that shows a generated secret once), presented alike. */
  create?: Documented & { body: C; run: (actor: Actor, body: In<C>) => R | Promise<R>; answer?: Shape };
  read?: Documented & { run: (actor: Actor, id: string) => R };
  update?: Documented & { body: U; run: (actor: Actor, id: string, body: In<U>) => R | Promise<R>; answer?: Shape };
  remove?: Documented & { run: (actor: Actor, id: string) => unknown };
}

const detailOf = (tag: string, op: Documented) => ({ tags: [tag], summary: op.summary, description: op.description });

/**
 * The answers of an operation. The success answer is built by the resource's presenter from its
 * schema, so it is described but not checked again as it leaves (present.ts, describedAnswer).
 * The guard's codes and the role's 403 are added by the API description (src/http/openapi.ts).
 */
function responsesOf(status: number, schema: GenericSchema, op: Documented, base: readonly ErrorCode[]) {
  return { [status]: describedAnswer(schema), ...errorResponses(...base, ...(op.errors ?? [])) };
}

interface Context {
  actor: Actor;
  params: { id: string };
  body: never;
  query: never;
  set: { status?: number | string; headers: Record<string, string> };
}

type Method = 'get' | 'post' | 'patch' | 'delete';
type Hook = { params?: GenericSchema; query?: GenericSchema; body?: GenericSchema; response: Record<number, GenericSchema>; detail: object; role: MembershipRole };

/** The routes of one resource. Typed as AnyElysia: the surface composes many (see client/v1/index.ts). */
export function resourceRoutes<
  R extends object,
  S extends Shape,
  Q extends GenericSchema = GenericSchema,
  C extends GenericSchema = GenericSchema,
  U extends GenericSchema = GenericSchema,
>(spec: ResourceSpec<R, S, Q, C, U>): AnyElysia {
  const present = presenterOf(spec.schema, spec.derive);
  const answerOf = (wider: Shape | undefined) =>
    wider ? { schema: wider, present: presenterOf(wider, spec.derive as Derivations<Shape>) } : { schema: spec.schema, present };
  const tag = spec.collection;
  const base = ['not_found', 'validation_failed'] as const;
  const routes: AnyElysia = new Elysia({ prefix: `/${spec.collection}` }).use(spec.guard);
  // Elysia infers each route's context from its hook; these handlers are generic, so one cast here.
  const add = (method: Method, path: string, handler: (context: Context) => unknown, hook: Hook) =>
    (routes[method] as (this: AnyElysia, path: string, handler: unknown, hook: Hook) => AnyElysia).call(routes, path, handler, hook);

  const { create, list, read, update, remove } = spec;
  if (create) {
    const answer = answerOf(create.answer);
    add(
      'post',
      '/',
      async ({ actor, body, set }) => {
        const created = await create.run(actor, body);
        set.status = 201;
        return answer.present(created);
      },
      { body: create.body, response: responsesOf(201, answer.schema, create, base), detail: detailOf(tag, create), role: create.role ?? 'admin' },
    );
  }
  if (list) {
    const presentPage = (page: Page<R>) => ({ data: page.data.map(present), nextCursor: page.nextCursor });
    const hook = { query: list.query, response: responsesOf(200, listEnvelope(spec.schema), list, base), detail: detailOf(tag, list), role: list.role ?? 'member' };
    if ('cached' in list) {
      const { cached } = list;
      const answers = answerCache();
      add(
        'get',
        '/',
        ({ actor, query, set }) => {
          cached.authorize(actor, query);
          set.headers['content-type'] = 'application/json';
          // The validated query names the page: its keys come in the schema's order.
          return answers(JSON.stringify(query), cached.changes(), () => JSON.stringify(presentPage(cached.page(query))));
        },
        hook,
      );
    } else {
      add('get', '/', ({ actor, query }) => presentPage(list.run(actor, query)), hook);
    }
  }
  if (read) {
    add('get', '/:id', ({ actor, params }) => present(read.run(actor, params.id)), {
      params: IdParams,
      response: responsesOf(200, spec.schema, read, base),
      detail: detailOf(tag, read),
      role: read.role ?? 'member',
    });
  }
  if (update) {
    const answer = answerOf(update.answer);
    add('patch', '/:id', async ({ actor, params, body }) => answer.present(await update.run(actor, params.id, body)), {
      params: IdParams,
      body: update.body,
      response: responsesOf(200, answer.schema, update, base),
      detail: detailOf(tag, update),
      role: update.role ?? 'admin',
    });
  }
  if (remove) {
    add(
      'delete',
      '/:id',
      ({ actor, params, set }) => {
        remove.run(actor, params.id);
        set.status = 204;
      },
      { params: IdParams, response: responsesOf(204, NoContent, remove, base), detail: detailOf(tag, remove), role: remove.role ?? 'admin' },
    );
  }
  return routes;
}
