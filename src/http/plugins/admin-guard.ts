/**
 * The superadmin-only admin surface (/api/admin/v1): anonymous callers get 401, everyone else
 * who is not a superadmin 403. API tokens never carry superadmin power (resolve.ts), so they get
 * 403 too. Cookie-authenticated writes must come from the console's origin, like client routes.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../deps.ts';
import type { Actor } from '../../domain/actor.ts';
import { DomainError, forbidden } from '../../lib/errors.ts';
import { assertSameOrigin, optionalActor } from './guard.ts';
import { ADMIN_GUARD, requires } from './security.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function adminGuard(deps: AppDeps) {
  return new Elysia().resolve({ as: 'scoped' }, requires(ADMIN_GUARD, ({ request }: { request: Request }): { actor: Actor } => {
    const actor = optionalActor(deps, request);
    if (!actor) throw new DomainError('unauthenticated', 'sign in as a superadmin');
    if (actor.kind === 'session' && !SAFE_METHODS.has(request.method)) assertSameOrigin(request, deps.config.publicUrl);
    if (!actor.isSuperadmin) throw forbidden('this needs a superadmin');
    return { actor };
  }));
}
