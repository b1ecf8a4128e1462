/**
 * The session cookie and the pieces auth routes share: writing and clearing the cookie, the
 * install gate (503 before the install, like every client route). Reading credentials lives in
 * guard.ts.
 *
 * Cookie: `<name>=<token>.<hmac>; Path=/; HttpOnly; SameSite=Lax` (+ Secure over https, where the
 * name carries the __Host- prefix). Max-Age is the browser's cap (400 days): the server-side
 * expiry slides with use (resolve.ts) and is what actually ends a session; a cookie that died
 * after the first week would sign out a user who is active every day.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../deps.ts';
import { signCookieValue } from '../../auth/token.ts';
import { installRequired, isInstalled } from '../../domain/identity/installed.ts';
import { assertSameOrigin, sessionCookieName } from './guard.ts';

export const COOKIE_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

type CookieDeps = Pick<AppDeps, 'config' | 'keyring'>;

export function sessionCookieHeader(deps: CookieDeps, token: string): string {
  const secure = deps.config.publicUrl.startsWith('https:') ? '; Secure' : '';
  const value = encodeURIComponent(signCookieValue(deps.keyring, token));
  return `${sessionCookieName(deps.config.publicUrl)}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${COOKIE_MAX_AGE_SECONDS}${secure}`;
}

export function clearedSessionCookieHeader(deps: CookieDeps): string {
  const secure = deps.config.publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${sessionCookieName(deps.config.publicUrl)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
}

type HeaderSet = { headers: Record<string, unknown> };

export function setSessionCookie(set: HeaderSet, deps: CookieDeps, token: string): void {
  set.headers['set-cookie'] = sessionCookieHeader(deps, token);
}

export function clearSessionCookie(set: HeaderSet, deps: CookieDeps): void {
  set.headers['set-cookie'] = clearedSessionCookieHeader(deps);
}

/**
 * Routes that write the session cookie (sign-in, sign-up, install, accept) must be called from
 * the console's origin: a foreign page must not sign a browser into an account (login CSRF).
 */
export function assertCookieWriteOrigin(deps: Pick<AppDeps, 'config'>, request: Request): void {
  assertSameOrigin(request, deps.config.publicUrl);
}

/**
 * Before the install (self-hosted runtime), client routes answer 503 `install_required`. A
 * transform hook runs before body validation, so the answer does not depend on the input.
 */
export function installGate(deps: Pick<AppDeps, 'config' | 'db'>) {
  return new Elysia().onTransform({ as: 'scoped' }, () => {
    if (deps.config.runtime === 'self-hosted' && !isInstalled(deps.db)) throw installRequired();
  });
}
