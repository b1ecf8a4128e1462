/**
 * External identity providers: the ones configured (GitHub, a generic OpenID Connect provider),
 * built once per app so their discovery and key caches live as long as it does, and the
 * `returnTo` rule that keeps the sign-in redirect on Panel's own origin.
 */
import type { OAuthConfig } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { GitHubProvider } from './github.ts';
import { OidcProvider } from './oidc.ts';
import type { Fetch, OAuthProvider, ProviderId } from './provider.ts';

export { codeChallengeS256, newCodeVerifier, newNonce } from './pkce.ts';
export {
  type ExternalEmail,
  type ExternalProfile,
  type Fetch,
  type OAuthErrorCode,
  OAuthError,
  type OAuthProvider,
  PROVIDER_IDS,
  type ProviderId,
} from './provider.ts';

export type OAuthProviders = ReadonlyMap<ProviderId, OAuthProvider>;

/** The configured providers, in a stable order (GitHub, then OpenID Connect). */
export function configuredProviders(config: OAuthConfig, deps: { clock: Clock; fetch?: Fetch }): OAuthProviders {
  const fetch: Fetch = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const providers = new Map<ProviderId, OAuthProvider>();
  if (config.github) providers.set('github', new GitHubProvider(config.github, { fetch }));
  if (config.oidc) providers.set('oidc', new OidcProvider(config.oidc, { fetch, clock: deps.clock }));
  return providers;
}

export const DEFAULT_RETURN_TO = '/';
const MAX_RETURN_TO_LENGTH = 512;
/** A path on this origin: one leading slash, not `//` or `/\` (both mean another host to a browser). */
const RELATIVE_PATH = /^\/(?![/\\])[\x21-\x7e]*$/;

/**
 * Where to send the browser after signing in: a same-origin relative path, or `/`. Absolute
 * URLs, scheme-relative `//host`, `/\host`, backslashes, control characters and whitespace are
 * refused, and the normalized result is checked again (`/.//evil` normalizes to `//evil`).
 */
export function safeReturnTo(value: unknown, publicUrl: string): string {
  if (typeof value !== 'string' || value.length > MAX_RETURN_TO_LENGTH) return DEFAULT_RETURN_TO;
  if (!RELATIVE_PATH.test(value) || value.includes('\\')) return DEFAULT_RETURN_TO;
  let url: URL;
  try {
    url = new URL(value, publicUrl);
  } catch {
    return DEFAULT_RETURN_TO;
  }
  if (url.origin !== new URL(publicUrl).origin) return DEFAULT_RETURN_TO;
  const normalized = `${url.pathname}${url.search}${url.hash}`;
  return RELATIVE_PATH.test(normalized) && !normalized.includes('\\') ? normalized : DEFAULT_RETURN_TO;
}
