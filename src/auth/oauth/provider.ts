/**
 * What every external identity provider offers Panel: the URL that starts the authorization
 * code flow, and the completion that turns a code into a profile. Providers speak to the network
 * through an injected fetch and never touch the database or HTTP routing.
 */
import { oauthProviderIds } from '../../contract/identity.ts';

export type ProviderId = (typeof oauthProviderIds)[number];
export const PROVIDER_IDS: readonly ProviderId[] = oauthProviderIds;

/** Stable codes: the callback redirects to /sign-in?error=<code>. */
export type OAuthErrorCode =
  /** The provider cannot be reached, or answered something that is not its protocol. */
  | 'provider_unavailable'
  /** The provider refused the code exchange (wrong code, redirect URI or PKCE verifier). */
  | 'provider_error'
  /** The ID token failed a check: signature, issuer, audience, expiry, nonce. */
  | 'invalid_id_token';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OAuthError';
  }
}

export interface ExternalEmail {
  address: string;
  verified: boolean;
}

/** Who the provider says signed in. */
export interface ExternalProfile {
  provider: ProviderId;
  /** The provider's stable user id (never a renamable login). */
  subject: string;
  /** Best first: the primary / the ID token's address. Only verified ones may link accounts. */
  emails: ExternalEmail[];
  displayName: string | null;
}

export interface AuthorizationRequest {
  state: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string;
}

export interface CodeExchange {
  code: string;
  redirectUri: string;
  codeVerifier: string;
  nonce: string;
  /** The `iss` parameter of the authorization response (RFC 9207), when the provider sends one. */
  issuer?: string;
}

export interface OAuthProvider {
  readonly id: ProviderId;
  /** Shown on the sign-in page. */
  readonly name: string;
  authorizationUrl(request: AuthorizationRequest): Promise<string>;
  complete(exchange: CodeExchange): Promise<ExternalProfile>;
}

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

const MAX_RESPONSE_BYTES = 1024 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * One JSON request to a provider: no redirects followed, a timeout, a size cap. Network
 * failures are `provider_unavailable`; a non-2xx answer is `failure` (the caller says which).
 */
export async function fetchJson(
  fetch: Fetch,
  url: string,
  init: RequestInit,
  failure: OAuthErrorCode = 'provider_unavailable',
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch {
    throw new OAuthError('provider_unavailable', `the provider did not answer (${new URL(url).pathname})`);
  }
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_RESPONSE_BYTES) throw new OAuthError('provider_unavailable', 'the provider answer is too large');
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES) throw new OAuthError('provider_unavailable', 'the provider answer is too large');
  if (!response.ok) throw new OAuthError(failure, `the provider answered ${response.status} (${new URL(url).pathname})`);
  try {
    return JSON.parse(text);
  } catch {
    throw new OAuthError('provider_unavailable', 'the provider answer is not JSON');
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A display name as the user table takes it: trimmed, 1-255 characters, or null. */
export function displayNameOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim().slice(0, 255);
  return trimmed === '' ? null : trimmed;
}
