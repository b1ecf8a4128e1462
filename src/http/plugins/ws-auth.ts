/**
 * WebSocket upgrades carry the browser's cookie like any request, and browsers let any page open
 * a WebSocket to any origin: a cookie-authenticated upgrade must come from PANEL_PUBLIC_URL's
 * origin (cross-site WebSocket hijacking). Bearer credentials are not ambient and need no check.
 * Use in a `.ws(path, { beforeHandle })` or before `server.upgrade()`.
 */
import type { AppDeps } from '../../deps.ts';
import type { Actor } from '../../domain/actor.ts';
import { DomainError } from '../../lib/errors.ts';
import { assertSameOrigin } from './guard.ts';
import { optionalActor } from './guard.ts';

export function authenticateUpgrade(deps: Pick<AppDeps, 'config' | 'keyring' | 'db' | 'clock'>, request: Request): Actor {
  const actor = optionalActor(deps, request);
  if (!actor) throw new DomainError('unauthenticated', 'sign in or send an API token');
  if (actor.kind === 'session') assertSameOrigin(request, deps.config.publicUrl);
  return actor;
}
