/**
 * A fake identity provider for tests, served by Bun.serve on 127.0.0.1 (a free port). One
 * server plays both kinds Panel supports:
 *
 *   OpenID Connect, issuer <url>/oidc:
 *     /oidc/.well-known/openid-configuration, /oidc/authorize, /oidc/token, /oidc/jwks, /oidc/userinfo
 *   GitHub, base URL <url>/github and API URL <url>/github-api:
 *     /github/login/oauth/authorize, /github/login/oauth/access_token, /github-api/user, /github-api/user/emails
 *
 * It behaves like a strict provider: codes are single use and bound to the client, redirect URI
 * and PKCE challenge (the token endpoint recomputes S256 of code_verifier), the client secret is
 * checked (HTTP Basic or in the form), and ID tokens are signed with a key it generates (ES256 or
 * RS256). Tests pick who "signs in" next and can bend the ID token (claims, key, algorithm).
 * Time comes from the caller (the app's ManualClock), so expiry checks line up without sleeping.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

export interface FakeUser {
  /** OIDC `sub`, or the GitHub numeric id. */
  subject: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  /** GitHub: the address list of /user/emails (default: `email` as primary with `emailVerified`). */
  githubEmails?: { email: string; verified: boolean; primary: boolean }[];
  login?: string;
}

export interface IdTokenTampering {
  /** Claims merged over the genuine ones (`undefined` values delete a claim). */
  claims?: Record<string, unknown>;
  /** Sign with a key the JWKS does not hold (under the published kid). */
  foreignKey?: boolean;
  /** The header's alg (e.g. `none`, `HS256`); the signature is then garbage. */
  alg?: string;
  /** Leave the ID token out of the token answer. */
  omit?: boolean;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  nonce: string | null;
  user: FakeUser;
  kind: 'oidc' | 'github';
}

const b64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

export interface FakeProviderOptions {
  now: () => Date;
  clientId?: string;
  clientSecret?: string;
  algorithm?: 'ES256' | 'RS256';
  /** token_endpoint_auth_methods_supported (default: basic and post). */
  authMethods?: string[];
  /** Send RFC 9207 `iss` with the authorization response. */
  sendIssuer?: boolean;
}

export class FakeOAuthProvider {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly algorithm: 'ES256' | 'RS256';
  readonly kid = `key-${randomBytes(4).toString('hex')}`;
  /** The next user to "sign in" at the authorization endpoint. */
  nextUser: FakeUser = { subject: 'user-1', email: 'alice@example.test', emailVerified: true, name: 'Alice' };
  /** Applied to the next ID tokens until reset. */
  tampering: IdTokenTampering = {};
  /** Every request the provider saw: path and what it checked, for assertions. */
  readonly log: { path: string; params: Record<string, string>; authorization?: string | null }[] = [];
  /** Overrides the issuer the discovery document names. */
  discoveryIssuer: string | null = null;

  private readonly server: ReturnType<typeof Bun.serve>;
  private readonly privateKey: KeyObject;
  private readonly publicJwk: Record<string, unknown>;
  private readonly codes = new Map<string, IssuedCode>();
  private readonly accessTokens = new Map<string, FakeUser>();

  constructor(private readonly options: FakeProviderOptions) {
    this.clientId = options.clientId ?? 'panel-client';
    this.clientSecret = options.clientSecret ?? 'panel-client-secret';
    this.algorithm = options.algorithm ?? 'ES256';
    this.privateKey = this.generateKey();
    this.publicJwk = { ...this.publicJwkOf(this.privateKey), kid: this.kid, use: 'sig', alg: this.algorithm };
    this.server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => this.handle(request) });
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }
  get issuer(): string {
    return `${this.url}/oidc`;
  }
  get githubBaseUrl(): string {
    return `${this.url}/github`;
  }
  get githubApiUrl(): string {
    return `${this.url}/github-api`;
  }

  stop(): void {
    this.server.stop(true);
  }

  private generateKey(): KeyObject {
    return this.algorithm === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
      : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  }

  private publicJwkOf(privateKey: KeyObject): Record<string, unknown> {
    const jwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
    return this.algorithm === 'ES256' ? { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y } : { kty: 'RSA', n: jwk.n, e: jwk.e };
  }

  /** A signed ID token as the provider would issue it (tests may also call this directly). */
  idToken(claims: Record<string, unknown>, tampering: IdTokenTampering = this.tampering): string {
    const merged: Record<string, unknown> = { ...claims, ...(tampering.claims ?? {}) };
    for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
    const header = { alg: tampering.alg ?? this.algorithm, typ: 'JWT', kid: this.kid };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(merged))}`;
    if (tampering.alg !== undefined && tampering.alg !== this.algorithm) return `${input}.${b64url(randomBytes(64))}`;
    const key = tampering.foreignKey ? this.generateKey() : this.privateKey;
    const signature =
      this.algorithm === 'ES256' ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', Buffer.from(input), key);
    return `${input}.${b64url(signature)}`;
  }

  private json(body: unknown, status = 200): Response {
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const form = request.method === 'POST' ? new URLSearchParams(await request.text()) : url.searchParams;
    const params = Object.fromEntries(form);
    this.log.push({ path: url.pathname, params, authorization: request.headers.get('authorization') });
    switch (url.pathname) {
      case '/oidc/.well-known/openid-configuration':
        return this.json({
          issuer: this.discoveryIssuer ?? this.issuer,
          authorization_endpoint: `${this.issuer}/authorize`,
          token_endpoint: `${this.issuer}/token`,
          jwks_uri: `${this.issuer}/jwks`,
          userinfo_endpoint: `${this.issuer}/userinfo`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: [this.algorithm],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: this.options.authMethods ?? ['client_secret_basic', 'client_secret_post'],
        });
      case '/oidc/jwks':
        return this.json({ keys: [this.publicJwk] });
      case '/oidc/authorize':
        return this.authorize(params, 'oidc');
      case '/github/login/oauth/authorize':
        return this.authorize(params, 'github');
      case '/oidc/token':
        return this.token(request, params, 'oidc');
      case '/github/login/oauth/access_token':
        return this.token(request, params, 'github');
      case '/oidc/userinfo':
      case '/github-api/user':
      case '/github-api/user/emails':
        return this.userinfo(request, url.pathname);
      default:
        return this.json({ error: 'not_found' }, 404);
    }
  }

  /** The user approves at once: back to redirect_uri with a code bound to this request. */
  private authorize(params: Record<string, string>, kind: 'oidc' | 'github'): Response {
    const { client_id: clientId, redirect_uri: redirectUri, state, code_challenge: codeChallenge, code_challenge_method: method } = params;
    if (clientId !== this.clientId || !redirectUri || !state || !codeChallenge || method !== 'S256') {
      return this.json({ error: 'invalid_request' }, 400);
    }
    if (kind === 'oidc' && (params.response_type !== 'code' || !params.scope?.split(' ').includes('openid'))) {
      return this.json({ error: 'invalid_request' }, 400);
    }
    const code = b64url(randomBytes(24));
    this.codes.set(code, { clientId, redirectUri, codeChallenge, codeChallengeMethod: method, nonce: params.nonce ?? null, user: this.nextUser, kind });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', state);
    if (this.options.sendIssuer && kind === 'oidc') back.searchParams.set('iss', this.issuer);
    return new Response(null, { status: 302, headers: { location: back.href } });
  }

  private clientAuthenticated(request: Request, params: Record<string, string>): boolean {
    const basic = request.headers.get('authorization')?.match(/^Basic (.+)$/)?.[1];
    if (basic) {
      const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent);
      return id === this.clientId && secret === this.clientSecret;
    }
    return params.client_id === this.clientId && params.client_secret === this.clientSecret;
  }

  private token(request: Request, params: Record<string, string>, kind: 'oidc' | 'github'): Response {
    // GitHub answers refusals with 200 and an error field; OIDC providers with 400.
    const refuse = (error: string) => this.json({ error }, kind === 'github' ? 200 : 400);
    if (!this.clientAuthenticated(request, params)) return refuse('invalid_client');
    if (kind === 'oidc' && params.grant_type !== 'authorization_code') return refuse('unsupported_grant_type');
    const issued = this.codes.get(params.code ?? '');
    if (!issued || issued.kind !== kind) return refuse('invalid_grant');
    this.codes.delete(params.code!); // single use, even when the rest fails
    if (issued.clientId !== this.clientId || issued.redirectUri !== params.redirect_uri) return refuse('invalid_grant');
    const verifier = params.code_verifier ?? '';
    const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || challenge !== issued.codeChallenge) return refuse('invalid_grant');

    const accessToken = b64url(randomBytes(24));
    this.accessTokens.set(accessToken, issued.user);
    if (kind === 'github') return this.json({ access_token: accessToken, token_type: 'bearer', scope: 'read:user,user:email' });
    const now = Math.floor(this.options.now().getTime() / 1000);
    const user = issued.user;
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      sub: user.subject,
      aud: this.clientId,
      iat: now,
      exp: now + 300,
      ...(issued.nonce === null ? {} : { nonce: issued.nonce }),
      ...(user.email === undefined ? {} : { email: user.email, email_verified: user.emailVerified ?? false }),
      ...(user.name === undefined ? {} : { name: user.name }),
    };
    return this.json({
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 300,
      ...(this.tampering.omit ? {} : { id_token: this.idToken(claims) }),
    });
  }

  private userinfo(request: Request, path: string): Response {
    const token = request.headers.get('authorization')?.match(/^Bearer (.+)$/)?.[1];
    const user = token ? this.accessTokens.get(token) : undefined;
    if (!user) return this.json({ message: 'Bad credentials' }, 401);
    if (path === '/oidc/userinfo') {
      return this.json({ sub: user.subject, ...(user.email === undefined ? {} : { email: user.email, email_verified: user.emailVerified ?? false }), name: user.name });
    }
    if (path === '/github-api/user') {
      return this.json({ id: Number(user.subject), login: user.login ?? 'octocat', name: user.name ?? null });
    }
    const emails = user.githubEmails ?? (user.email === undefined ? [] : [{ email: user.email, verified: user.emailVerified ?? false, primary: true }]);
    return this.json(emails);
  }
}
