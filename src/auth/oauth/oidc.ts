/**
 * A generic OpenID Connect provider (authorization code flow with PKCE, confidential client).
 *
 * Discovery comes from <issuer>/.well-known/openid-configuration and must name the configured
 * issuer exactly. The ID token is the proof of identity: its signature is checked against the
 * provider's JWKS (RS256 or ES256), then iss, aud (this client only), azp, exp, iat and the nonce
 * of this very flow. Discovery and keys are cached for an hour; an unknown `kid` refreshes the
 * keys (at most once a minute), which follows a provider's key rotation.
 */
import type { OidcOAuthConfig } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { type Jwk, JWS_ALGORITHMS, verifyJws } from './jwt.ts';
import {
  type AuthorizationRequest,
  type CodeExchange,
  displayNameOf,
  type ExternalEmail,
  type ExternalProfile,
  type Fetch,
  fetchJson,
  isRecord,
  type OAuthProvider,
  OAuthError,
} from './provider.ts';

const CACHE_MS = 60 * 60_000;
const KEY_REFRESH_MIN_MS = 60_000;
/** Clock difference tolerated between Panel and the provider (exp, iat). */
export const ID_TOKEN_SKEW_MS = 30_000;
const SCOPES = 'openid email profile';

interface Discovery {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  userinfoEndpoint: string | null;
  useBasicAuth: boolean;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** Provider endpoints must be https (plain http only on loopback, for tests and same-host providers). */
function endpoint(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new OAuthError('provider_unavailable', `discovery lacks ${name}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthError('provider_unavailable', `discovery ${name} is not a URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname))) {
    throw new OAuthError('provider_unavailable', `discovery ${name} is not https`);
  }
  return url.href;
}

const invalidIdToken = (why: string) => new OAuthError('invalid_id_token', `the ID token was refused: ${why}`);

export class OidcProvider implements OAuthProvider {
  readonly id = 'oidc' as const;
  readonly name: string;
  private discovery: { value: Discovery; at: number } | null = null;
  private keys: { value: Jwk[]; at: number } | null = null;

  constructor(
    private readonly config: OidcOAuthConfig,
    private readonly deps: { fetch: Fetch; clock: Clock },
  ) {
    this.name = config.name;
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  private async discover(): Promise<Discovery> {
    if (this.discovery && this.now() - this.discovery.at < CACHE_MS) return this.discovery.value;
    const url = `${this.config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const doc = await fetchJson(this.deps.fetch, url, { headers: { accept: 'application/json' } });
    if (!isRecord(doc)) throw new OAuthError('provider_unavailable', 'discovery is not an object');
    // OpenID Connect Discovery §4.3: the document must name exactly the issuer it was fetched for.
    if (doc.issuer !== this.config.issuer) throw new OAuthError('provider_unavailable', 'discovery names another issuer');
    const methods = doc.token_endpoint_auth_methods_supported;
    const value: Discovery = {
      authorizationEndpoint: endpoint(doc.authorization_endpoint, 'authorization_endpoint'),
      tokenEndpoint: endpoint(doc.token_endpoint, 'token_endpoint'),
      jwksUri: endpoint(doc.jwks_uri, 'jwks_uri'),
      userinfoEndpoint: doc.userinfo_endpoint === undefined ? null : endpoint(doc.userinfo_endpoint, 'userinfo_endpoint'),
      // client_secret_basic is the default when the provider does not say (Discovery §3).
      useBasicAuth: !Array.isArray(methods) || methods.includes('client_secret_basic') || !methods.includes('client_secret_post'),
    };
    this.discovery = { value, at: this.now() };
    return value;
  }

  private async jwks(discovery: Discovery, refresh: boolean): Promise<Jwk[]> {
    const cached = this.keys;
    const fresh = cached && this.now() - cached.at < CACHE_MS;
    const mayRefresh = !cached || this.now() - cached.at >= KEY_REFRESH_MIN_MS;
    if (cached && fresh && !(refresh && mayRefresh)) return cached.value;
    const doc = await fetchJson(this.deps.fetch, discovery.jwksUri, { headers: { accept: 'application/json' } });
    if (!isRecord(doc) || !Array.isArray(doc.keys)) throw new OAuthError('provider_unavailable', 'the JWKS is not a key set');
    const value = doc.keys.filter(isRecord) as Jwk[];
    this.keys = { value, at: this.now() };
    return value;
  }

  async authorizationUrl(request: AuthorizationRequest): Promise<string> {
    const discovery = await this.discover();
    const url = new URL(discovery.authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', request.redirectUri);
    url.searchParams.set('scope', SCOPES);
    url.searchParams.set('state', request.state);
    url.searchParams.set('nonce', request.nonce);
    url.searchParams.set('code_challenge', request.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.href;
  }

  async complete(exchange: CodeExchange): Promise<ExternalProfile> {
    // RFC 9207: an `iss` in the authorization response must be ours (mix-up defence).
    if (exchange.issuer !== undefined && exchange.issuer !== this.config.issuer) {
      throw new OAuthError('provider_error', 'the authorization response names another issuer');
    }
    const discovery = await this.discover();
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: exchange.code,
      redirect_uri: exchange.redirectUri,
      code_verifier: exchange.codeVerifier,
    });
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
    if (discovery.useBasicAuth) {
      // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded.
      const pair = `${encodeURIComponent(this.config.clientId)}:${encodeURIComponent(this.config.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      form.set('client_id', this.config.clientId);
      form.set('client_secret', this.config.clientSecret);
    }
    const tokens = await fetchJson(this.deps.fetch, discovery.tokenEndpoint, { method: 'POST', headers, body: form.toString() }, 'provider_error');
    if (!isRecord(tokens) || typeof tokens.id_token !== 'string') throw new OAuthError('provider_error', 'the token answer has no ID token');

    const claims = await this.verifyIdToken(discovery, tokens.id_token, exchange.nonce);
    const subject = claims.sub as string;
    let emailClaims: Record<string, unknown> = claims;
    if (typeof claims.email !== 'string' && discovery.userinfoEndpoint && typeof tokens.access_token === 'string') {
      emailClaims = await this.userinfo(discovery.userinfoEndpoint, tokens.access_token, subject);
    }
    const emails: ExternalEmail[] =
      typeof emailClaims.email === 'string'
        ? [{ address: emailClaims.email, verified: emailClaims.email_verified === true || emailClaims.email_verified === 'true' }]
        : [];
    return {
      provider: 'oidc',
      subject,
      emails,
      displayName: displayNameOf(claims.name ?? emailClaims.name ?? claims.preferred_username),
    };
  }

  /** Signature, then every claim OpenID Connect Core §3.1.3.7 asks a client to check. */
  private async verifyIdToken(discovery: Discovery, token: string, nonce: string): Promise<Record<string, unknown>> {
    let result = verifyJws(token, await this.jwks(discovery, false));
    if (!result.ok && result.reason === 'unknown_key') result = verifyJws(token, await this.jwks(discovery, true));
    if (!result.ok) throw invalidIdToken(result.reason === 'unsupported' ? `algorithm must be one of ${JWS_ALGORITHMS.join(', ')}` : result.reason.replace('_', ' '));
    const claims = result.payload;
    const now = this.now();

    if (claims.iss !== this.config.issuer) throw invalidIdToken('issuer');
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    // This client must be the audience, and no other party may be (an untrusted extra audience).
    if (audiences.length === 0 || audiences.some((aud) => aud !== this.config.clientId)) throw invalidIdToken('audience');
    if (claims.azp !== undefined && claims.azp !== this.config.clientId) throw invalidIdToken('authorized party');
    if (typeof claims.exp !== 'number' || now >= claims.exp * 1000 + ID_TOKEN_SKEW_MS) throw invalidIdToken('expired');
    if (claims.iat !== undefined && (typeof claims.iat !== 'number' || claims.iat * 1000 > now + ID_TOKEN_SKEW_MS)) throw invalidIdToken('issued in the future');
    if (typeof claims.nonce !== 'string' || claims.nonce !== nonce) throw invalidIdToken('nonce');
    if (typeof claims.sub !== 'string' || claims.sub === '' || claims.sub.length > 255) throw invalidIdToken('subject');
    return claims;
  }

  /** Claims from the userinfo endpoint, which must be about the ID token's subject (Core §5.3.2). */
  private async userinfo(url: string, accessToken: string, subject: string): Promise<Record<string, unknown>> {
    const info = await fetchJson(this.deps.fetch, url, { headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` } }, 'provider_error');
    if (!isRecord(info) || info.sub !== subject) throw new OAuthError('provider_error', 'userinfo is about another subject');
    return info;
  }
}
