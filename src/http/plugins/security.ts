/**
 * How callers authenticate, as the API description states it: the security schemes, and the
 * requirement each guard puts on the routes it protects. A guard marks its resolver with
 * `requires(...)`; the description (src/http/openapi.ts) reads the mark off each route's hooks,
 * so a route behind a guard is documented as secured without saying so itself.
 */
import type { MembershipRole } from '../../contract/enums.ts';
import type { ErrorCode } from '../../contract/errors.ts';

/** The session cookie's name (`__Host-` prefixed over https: guard.ts, sessionCookieName). */
export const SESSION_COOKIE = 'panel_session';

export const SECURITY_SCHEMES = {
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      'The session the sign-in routes set (HttpOnly; `__Host-panel_session` over https). Writes sent with it must carry an `Origin` equal to the public URL.',
  },
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (`POST /api/client/v1/api-tokens`), bound to one organization with a role at most its creator’s. Never superadmin.',
  },
  joinToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A join token (`POST /api/client/v1/join-tokens`): single use, short-lived. It enrolls a server (`POST /api/daemon/v1/enroll`, in the body) and, while it can still enroll, downloads this executable.',
  },
  daemonCredential: {
    type: 'http',
    scheme: 'bearer',
    description:
      "The credential enrollment answers once to a server's daemon. It authenticates that daemon's WebSocket upgrade to `/ws/daemon/v1` (not an HTTP operation) and nothing else; a new enrollment replacing the server rotates it.",
  },
} as const;

export type SecurityRequirement = Partial<Record<keyof typeof SECURITY_SCHEMES, string[]>>[];

/** A signed-in caller: the session cookie or an API token. */
export const CALLER: SecurityRequirement = [{ sessionCookie: [] }, { apiToken: [] }];

/** The client guard: a caller, 503 before the install, and same-origin cookie writes. */
export const CLIENT_GUARD: GuardMark = { security: CALLER, errors: ['unauthenticated', 'install_required'], writeErrors: ['forbidden'] };
/** The admin guard: a superadmin's session (API tokens never carry superadmin power). */
export const ADMIN_GUARD: GuardMark = { security: [{ sessionCookie: [] }], errors: ['unauthenticated', 'forbidden'], writeErrors: [] };
/** Anyone; a session cookie, when sent, is used. */
export const OPTIONAL_CALLER: SecurityRequirement = [{}, { sessionCookie: [] }];
/** Anyone for the checksum; the executable itself needs a join token that can still enroll. */
export const OPTIONAL_JOIN_TOKEN: SecurityRequirement = [{}, { joinToken: [] }];
/** No credential at all (sign-in, enrollment with a join token in its body, health). */
export const PUBLIC: SecurityRequirement = [];

/** What a guard requires, and the codes it answers itself (on every route, and on writes). */
export interface GuardMark {
  security: SecurityRequirement;
  errors: readonly ErrorCode[];
  writeErrors: readonly ErrorCode[];
}

const GUARD = Symbol.for('panel.guard');

/** Marks a guard's resolver with what its routes require and can answer. */
export function requires<F extends (...args: never[]) => unknown>(mark: GuardMark, resolver: F): F {
  return Object.assign(resolver, { [GUARD]: mark });
}

/** The mark a route's hooks carry from its guard, if any. */
export function guardOf(hooks: { beforeHandle?: unknown } | undefined): GuardMark | undefined {
  const handlers = Array.isArray(hooks?.beforeHandle) ? hooks.beforeHandle : [];
  for (const handler of handlers as { fn?: { [GUARD]?: GuardMark } }[]) {
    const mark = handler.fn?.[GUARD];
    if (mark) return mark;
  }
  return undefined;
}

/**
 * What a client route needs, declared once on the route (`role: 'admin'`): an organization role
 * (the guard hands it to `authorize` as the actor's `routeRole`), or `self` for the caller's own
 * account (sign-in factors, sessions), which needs no organization role. The API description
 * shows it as `x-panel-role`.
 */
export type RouteRole = MembershipRole | 'self';
export const ROLE_EXTENSION = 'x-panel-role';
