import { Elysia } from 'elysia';
import type { AppDeps } from '../../app.ts';
import { verifyCookieValue } from '../../auth/token.ts';
import { organization } from '../../db/schema/index.ts';
import type { Actor } from '../../domain/actor.ts';
import { resolveActor } from '../../domain/identity/resolve.ts';
import { DomainError } from '../../lib/errors.ts';

export const SESSION_COOKIE = 'panel_session';
/** Over https the cookie takes the __Host- prefix: Secure, Path=/, no Domain, by browser rule. */
export const sessionCookieName = (publicUrl: string) => (publicUrl.startsWith('https:') ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

function bearerOf(request: Request): string | null {
  const header = request.headers.get('authorization');
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1]! : null;
}

/**
 * Cookie-authenticated writes and WebSocket upgrades must come from the console's own origin
 * (CSRF). Bearer tokens are not sent ambiently by browsers, so they need no such check.
 */
export function assertSameOrigin(request: Request, publicUrl: string): void {
  const origin = request.headers.get('origin');
  if (origin !== new URL(publicUrl).origin) {
    throw new DomainError('forbidden', 403, 'cross-origin request refused');
  }
}

/**
 * The client guard: every client route resolves its caller before the handler runs, so a new
 * route cannot forget it. Domain code then calls authorize(actor, organizationId, access) on
 * whatever it loads, answering 404 for other organizations.
 */
export function clientGuard(deps: AppDeps) {
  const cookieName = sessionCookieName(deps.config.publicUrl);
  let installed = false;
  const isInstalled = () => (installed ||= deps.db.select({ id: organization.id }).from(organization).limit(1).get() !== undefined);

  return new Elysia({ name: 'client-guard' }).resolve({ as: 'scoped' }, ({ request }): { actor: Actor } => {
    if (deps.config.runtime === 'self-hosted' && !isInstalled()) {
      throw new DomainError('install_required', 503, 'Panel is not installed yet; finish the install wizard');
    }
    const bearer = bearerOf(request);
    const cookie = bearer ? null : readCookie(request.headers.get('cookie'), cookieName);
    const sessionToken = cookie ? verifyCookieValue(deps.keyring, cookie) : null;
    const actor = resolveActor(deps.db, deps.clock, { bearer, sessionToken });
    if (!actor) throw new DomainError('unauthenticated', 401, 'sign in or send an API token');
    if (actor.kind === 'session' && !SAFE_METHODS.has(request.method)) assertSameOrigin(request, deps.config.publicUrl);
    return { actor };
  });
}
