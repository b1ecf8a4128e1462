import { type DocumentDecoration, Elysia } from 'elysia';
import type { AppDeps } from '../../deps.ts';
import { verifyCookieValue } from '../../auth/token.ts';
import type { Actor } from '../../domain/actor.ts';
import { installRequired, isInstalled } from '../../domain/identity/installed.ts';
import { resolveActor } from '../../domain/identity/resolve.ts';
import { DomainError } from '../../lib/errors.ts';
import { CLIENT_GUARD, requires, ROLE_EXTENSION, type RouteRole, SESSION_COOKIE } from './security.ts';

/** Over https the cookie takes the __Host- prefix: Secure, Path=/, no Domain, by browser rule. */
export const sessionCookieName = (publicUrl: string) => (publicUrl.startsWith('https:') ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      // Every cookie request reads this; decoding a value without escapes would only copy it.
      return value.includes('%') ? decodeURIComponent(value) : value;
    }
  }
  return null;
}

export function bearerOf(request: Request): string | null {
  const match = request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1]! : null;
}

type CredentialDeps = Pick<AppDeps, 'config' | 'keyring' | 'db' | 'clock'>;

/** The verified session token of the request's cookie, or null. */
export function sessionTokenOf(deps: Pick<AppDeps, 'config' | 'keyring'>, request: Request): string | null {
  const cookie = readCookie(request.headers.get('cookie'), sessionCookieName(deps.config.publicUrl));
  return cookie ? verifyCookieValue(deps.keyring, cookie) : null;
}

/** The caller when the request carries valid credentials (bearer first, then cookie), else null. */
export function optionalActor(deps: CredentialDeps, request: Request): Actor | null {
  const bearer = bearerOf(request);
  const sessionToken = bearer ? null : sessionTokenOf(deps, request);
  return resolveActor(deps.db, deps.clock, { bearer, sessionToken });
}

/**
 * Cookie-authenticated writes and WebSocket upgrades must come from the console's own origin
 * (CSRF). Bearer tokens are not sent ambiently by browsers, so they need no such check.
 */
export function assertSameOrigin(request: Request, publicUrl: string): void {
  const origin = request.headers.get('origin');
  if (origin !== new URL(publicUrl).origin) {
    throw new DomainError('forbidden', 'cross-origin request refused');
  }
}

/**
 * The client guard: every client route resolves its caller before the handler runs, so a new
 * route cannot forget it. Domain code then calls authorize(actor, organizationId, access) on
 * whatever it loads, answering 404 for other organizations.
 *
 * A route declares the role it needs once, `role: 'admin'` in its hook: the API description shows
 * it (`x-panel-role`) and the actor carries it to `authorize`, which then asks at least that role
 * of the caller in the organization of whatever the route loads (another organization's row stays
 * 404, so the check cannot happen before the row is loaded).
 */
export function clientGuard(deps: AppDeps) {
  return new Elysia({ name: 'client-guard' })
    .resolve(
      { as: 'scoped' },
      requires(CLIENT_GUARD, ({ request }: { request: Request }): { actor: Actor } => {
        if (deps.config.runtime === 'self-hosted' && !isInstalled(deps.db)) throw installRequired();
        const actor = optionalActor(deps, request);
        if (!actor) throw new DomainError('unauthenticated', 'sign in or send an API token');
        if (actor.kind === 'session' && !SAFE_METHODS.has(request.method)) assertSameOrigin(request, deps.config.publicUrl);
        return { actor };
      }),
    )
    .macro({
      role: (role: RouteRole) => ({
        // DocumentDecoration has no `x-` keys; the generator copies them into the operation.
        detail: { [ROLE_EXTENSION]: role } as DocumentDecoration,
        resolve: ({ actor }) => ({ actor: role === 'self' ? actor : { ...actor, routeRole: role } }),
      }),
    });
}
