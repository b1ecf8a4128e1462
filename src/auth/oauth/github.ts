/**
 * GitHub (OAuth app or GitHub App user authorization; GitHub Enterprise through the base and API
 * URLs). GitHub signs no ID token: the code is exchanged (with the PKCE verifier) for an access
 * token, which reads the user (`/user`: the numeric id is the subject, logins can be renamed)
 * and their e-mail addresses (`/user/emails`, scope `user:email`) with GitHub's verified flag.
 */
import type { GitHubOAuthConfig } from '../../config.ts';
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

const SCOPES = 'read:user user:email';

export class GitHubProvider implements OAuthProvider {
  readonly id = 'github' as const;
  readonly name = 'GitHub';

  constructor(
    private readonly config: GitHubOAuthConfig,
    private readonly deps: { fetch: Fetch },
  ) {}

  async authorizationUrl(request: AuthorizationRequest): Promise<string> {
    const url = new URL(`${this.config.baseUrl}/login/oauth/authorize`);
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', request.redirectUri);
    url.searchParams.set('scope', SCOPES);
    url.searchParams.set('state', request.state);
    url.searchParams.set('code_challenge', request.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.href;
  }

  async complete(exchange: CodeExchange): Promise<ExternalProfile> {
    const form = new URLSearchParams({
      client_id: this.config.clientId,
      client_secret: this.config.clientSecret,
      code: exchange.code,
      redirect_uri: exchange.redirectUri,
      code_verifier: exchange.codeVerifier,
    });
    const tokens = await fetchJson(
      this.deps.fetch,
      `${this.config.baseUrl}/login/oauth/access_token`,
      { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() },
      'provider_error',
    );
    // GitHub reports a refused exchange with 200 and an `error` field.
    if (!isRecord(tokens) || typeof tokens.access_token !== 'string' || tokens.access_token === '') {
      throw new OAuthError('provider_error', 'GitHub refused the code exchange');
    }
    const headers = {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${tokens.access_token}`,
      'user-agent': 'Panel',
      'x-github-api-version': '2022-11-28',
    };
    const profile = await fetchJson(this.deps.fetch, `${this.config.apiUrl}/user`, { headers }, 'provider_error');
    if (!isRecord(profile) || !Number.isSafeInteger(profile.id) || (profile.id as number) <= 0) {
      throw new OAuthError('provider_unavailable', 'GitHub answered a user without an id');
    }
    return {
      provider: 'github',
      subject: String(profile.id),
      emails: await this.emails(headers),
      displayName: displayNameOf(profile.name) ?? displayNameOf(profile.login),
    };
  }

  /** Primary address first; an account whose token may not read addresses simply has none. */
  private async emails(headers: Record<string, string>): Promise<ExternalEmail[]> {
    let list: unknown;
    try {
      list = await fetchJson(this.deps.fetch, `${this.config.apiUrl}/user/emails`, { headers }, 'provider_error');
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'provider_error') return [];
      throw error;
    }
    if (!Array.isArray(list)) return [];
    return list
      .filter(isRecord)
      .filter((entry) => typeof entry.email === 'string')
      .sort((a, b) => Number(b.primary === true) - Number(a.primary === true))
      .map((entry) => ({ address: entry.email as string, verified: entry.verified === true }));
  }
}
