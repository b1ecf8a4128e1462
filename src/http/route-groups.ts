/**
 * Route groups registered at their first request. Registering the client surface's routes was
 * the largest part of `panel serve`'s start (about 40 ms of 87 on a quiet machine: Elysia merges
 * hooks, applies macros and analyses every handler as it adds a route), while the requests an
 * install gets mostly touch a few groups (docs/PERFORMANCE.md, finding 18).
 *
 * A surface names its groups with the first path segments under its prefix that each group's
 * routes use (a test keeps these honest: src/http/client/v1/index.test.ts). Until a group is
 * loaded, one hidden catch-all route under the prefix stands in for it: the first request under
 * one of its segments imports the group, adds its routes to the app, recompiles the app's
 * request handler, and hands the same request to it again. From then on the group's own routes
 * answer first; the catch-all only answers paths no group serves, with the usual 404.
 *
 * The API description (and tests that walk the route table) load every group first:
 * `loadEveryRouteGroup`.
 */
import { type AnyElysia, Elysia, NotFoundError } from 'elysia';

export interface RouteGroup<D> {
  /** The first path segments under the surface's prefix that this group's routes use. */
  segments: readonly string[];
  load(deps: D): Promise<AnyElysia>;
}

export interface LazySurface<D> {
  /** `/api/client/v1`: every route of every group lies under it. */
  prefix: string;
  groups: readonly RouteGroup<D>[];
}

/** Loads what is left of every surface mounted on an app. */
const loadersOf = new WeakMap<AnyElysia, (() => Promise<void>)[]>();

/** Requests a catch-all handed on once their groups were loaded: their own dispatch logs and counts them. */
const handedOn = new WeakSet<Request>();

export const wasHandedOn = (request: Request): boolean => handedOn.has(request);

const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const catchAlls = new Set<string>();
const catchAllOf = (prefix: string) => `${prefix}/*`;

/** Whether `route` is a lazy surface's catch-all: what it answers itself matched no route. */
export const isCatchAll = (route: string): boolean => catchAlls.has(route);

/** Mounts `surface` on the app so that each of its groups is registered at its first request. */
export const lazyRouteGroups =
  <D>(deps: D, surface: LazySurface<D>) =>
  (app: AnyElysia): AnyElysia => {
    const loading = new Map<RouteGroup<D>, Promise<void>>();
    const loaded = new Set<RouteGroup<D>>();
    const bySegment = new Map<string, RouteGroup<D>[]>();
    for (const group of surface.groups) for (const segment of group.segments) bySegment.set(segment, [...(bySegment.get(segment) ?? []), group]);

    const load = (group: RouteGroup<D>): Promise<void> => {
      let pending = loading.get(group);
      if (!pending) {
        pending = group.load(deps).then((routes) => {
          app.use(new Elysia({ prefix: surface.prefix }).use(routes));
          loaded.add(group);
          // The request handler is generated from the routes known when it was compiled.
          app.compile();
        });
        // A failed import answers 500 once and is tried again by the next request.
        pending.catch(() => loading.delete(group));
        loading.set(group, pending);
      }
      return pending;
    };
    const loadAll = async () => {
      await Promise.all(surface.groups.map(load));
    };
    loadersOf.set(app, [...(loadersOf.get(app) ?? []), loadAll]);

    const segmentAt = surface.prefix.length + 1;
    catchAlls.add(catchAllOf(surface.prefix));
    // The app's body parser leaves a catch-all's request body unread for the route it is handed to.
    const handOn = async ({ request, path }: { request: Request; path: string }) => {
      const end = path.indexOf('/', segmentAt);
      const segment = path.slice(segmentAt, end === -1 ? undefined : end);
      const missing = (bySegment.get(segment) ?? []).filter((group) => !loaded.has(group));
      // Every group serving this segment is registered: no route of theirs matched.
      if (missing.length === 0) throw new NotFoundError();
      await Promise.all(missing.map(load));
      handedOn.add(request);
      return app.handle(request);
    };
    // One per method rather than ALL: a GET finds the console's `/*` before any ALL route.
    for (const method of ROUTE_METHODS) app.route(method, catchAllOf(surface.prefix), handOn as never, { detail: { hide: true } });
    return app;
  };

/** Registers every route group of the app's lazy surfaces (the API description needs them all). */
export async function loadEveryRouteGroup(app: AnyElysia): Promise<void> {
  await Promise.all((loadersOf.get(app) ?? []).map((loadAll) => loadAll()));
}
