/**
 * Signing in with an external identity provider (GitHub, a generic OpenID Connect provider).
 *
 * Start: a `pnoauth` state is sealed for this browser (its subject is the hash of a random
 * binding the browser holds in a cookie) and carries the PKCE verifier, the nonce, the provider
 * and the sanitized returnTo; only the state and the S256 challenge reach the provider.
 *
 * Callback: the state must open (not expired, not used before: it is single use), belong to this
 * browser and to this provider; the code is then exchanged with the verifier. The external
 * account is found by its link (provider, subject); failing that it is linked to an existing
 * user ONLY through an e-mail address the provider reports as verified; failing that a user is
 * created only when sign-up is enabled. The provider stands for the first factor: a user with
 * TOTP or passkeys still gets a pending `pn2fa` challenge, never a session.
 */
import { and, eq } from 'drizzle-orm';
import {
  codeChallengeS256,
  type ExternalProfile,
  newCodeVerifier,
  newNonce,
  OAuthError,
  type OAuthProviders,
  type OAuthProvider,
  type ProviderId,
  safeReturnTo,
} from '../../auth/oauth/index.ts';
import { hashToken } from '../../auth/token.ts';
import { type Challenge, openChallenge, peekChallenge, sealChallenge } from '../../crypto/index.ts';
import type { Db } from '../../db/client.ts';
import { oauthIdentity, type User, user } from '../../db/schema/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { createOrganization } from '../organizations/service.ts';
import type { Queryable } from '../shared/database.ts';
import { consumedChallengeStore } from './challenges.ts';
import type { IdentityContext, RequestMeta } from './context.ts';
import { completeFirstFactor, type SessionStarted } from './sign-in.ts';
import type { SecondFactorMethod } from './users.ts';
import { findUserByEmail, normalizeEmail } from './users.ts';

export interface OAuthContext extends IdentityContext {
  providers: OAuthProviders;
  publicUrl: string;
  /** Whether a sign-in may create a user (development runtime with PANEL_IS_SIGNUP_ENABLED). */
  signUpEnabled: boolean;
  /** The absolute callback URL registered at the provider (the transport knows its paths). */
  callbackUrl(provider: ProviderId): string;
}

/**
 * Codes the callback redirects with (/sign-in?error=<code>). Besides the providers' own
 * (`provider_unavailable`, `provider_error`, `invalid_id_token`):
 */
export type OAuthFailure =
  | 'invalid_state'
  | 'access_denied'
  | 'invalid_request'
  | 'email_not_verified'
  | 'signup_disabled'
  | 'account_conflict'
  | 'provider_not_configured';

const fail = (code: OAuthFailure | OAuthError['code'], message: string) => new DomainError(code, message);
const invalidState = () => fail('invalid_state', 'the sign-in state is invalid, expired, already used or from another browser; start again');

const MAX_STATE_LENGTH = 4096;
const MAX_CODE_LENGTH = 2048;

/** The state's subject: this browser's binding cookie, hashed (the cookie itself stays in the browser). */
export const browserSubject = (binding: string) => `browser:${hashToken(binding)}`;

export function listProviders(ctx: Pick<OAuthContext, 'providers'>) {
  return [...ctx.providers.values()].map((provider) => ({ id: provider.id, name: provider.name }));
}

function providerOf(ctx: OAuthContext, id: string): OAuthProvider {
  const provider = ctx.providers.get(id as ProviderId);
  if (!provider) throw fail('provider_not_configured', 'this sign-in provider is not configured');
  return provider;
}

/** Provider failures keep their code; anything else is the caller's problem. */
async function viaProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof OAuthError) throw fail(error.code, error.message);
    throw error;
  }
}

/** The provider's authorization URL for this browser (`binding`), with a fresh sealed state. */
export async function startOAuth(ctx: OAuthContext, providerId: string, input: { returnTo: unknown; binding: string }): Promise<string> {
  const provider = providerOf(ctx, providerId);
  const verifier = newCodeVerifier();
  const nonce = newNonce();
  const returnTo = safeReturnTo(input.returnTo, ctx.publicUrl);
  const state = sealChallenge(ctx.keyring, ctx.clock, 'oauth', browserSubject(input.binding), { provider: provider.id, verifier, nonce, returnTo });
  return viaProvider(() =>
    provider.authorizationUrl({ state, redirectUri: ctx.callbackUrl(provider.id), codeChallenge: codeChallengeS256(verifier), nonce }),
  );
}

interface StateData {
  verifier: string;
  nonce: string;
  returnTo: string;
}

/** Opens (and spends) the state after checking it belongs to this browser and provider. */
function redeemState(ctx: OAuthContext, provider: ProviderId, state: string | undefined, binding: string | null): StateData {
  if (!state || state.length > MAX_STATE_LENGTH || !binding) throw invalidState();
  let peeked: Challenge;
  try {
    peeked = peekChallenge(ctx.keyring, ctx.clock, 'oauth', state);
  } catch {
    throw invalidState();
  }
  const data = peeked.data;
  if (peeked.subject !== browserSubject(binding)) throw invalidState();
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data.provider !== provider) throw invalidState();
  const { verifier, nonce, returnTo } = data;
  if (typeof verifier !== 'string' || typeof nonce !== 'string' || typeof returnTo !== 'string') throw invalidState();
  try {
    openChallenge(ctx.keyring, ctx.clock, 'oauth', state, consumedChallengeStore(ctx.db, ctx.clock));
  } catch {
    throw invalidState();
  }
  // Checked again: the rule may have tightened since the state was sealed.
  return { verifier, nonce, returnTo: safeReturnTo(returnTo, ctx.publicUrl) };
}

export type OAuthOutcome =
  | { kind: 'session'; session: SessionStarted; returnTo: string }
  | { kind: 'second_factor'; challenge: string; methods: SecondFactorMethod[]; returnTo: string };

export interface CallbackInput {
  code?: string;
  state?: string;
  /** The provider's `error` parameter (the user declined, or the request was refused). */
  error?: string;
  /** RFC 9207 `iss` parameter. */
  issuer?: string;
  /** The browser binding cookie's value, when the browser sent one. */
  binding: string | null;
}

export async function completeOAuth(ctx: OAuthContext, providerId: string, input: CallbackInput, meta: RequestMeta): Promise<OAuthOutcome> {
  const provider = providerOf(ctx, providerId);
  const state = redeemState(ctx, provider.id, input.state, input.binding);
  if (input.error !== undefined) throw fail('access_denied', 'the provider did not authorize the sign-in');
  if (!input.code || input.code.length > MAX_CODE_LENGTH) throw fail('invalid_request', 'the provider sent no authorization code');

  const profile = await viaProvider(() =>
    provider.complete({
      code: input.code!,
      redirectUri: ctx.callbackUrl(provider.id),
      codeVerifier: state.verifier,
      nonce: state.nonce,
      ...(input.issuer === undefined ? {} : { issuer: input.issuer }),
    }),
  );
  const signedIn = resolveExternalUser(ctx, profile);
  const result = completeFirstFactor(ctx, signedIn, meta);
  if (result.kind === 'session') return { kind: 'session', session: result, returnTo: state.returnTo };
  return { kind: 'second_factor', challenge: result.challenge, methods: result.methods, returnTo: state.returnTo };
}

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;
const usableEmail = (address: string) => address.length >= 3 && address.length <= 320 && EMAIL_SHAPE.test(address);

/** The provider's verified, well-formed addresses, normalized, best first. */
function verifiedEmails(profile: ExternalProfile): string[] {
  return [...new Set(profile.emails.filter((email) => email.verified).map((email) => normalizeEmail(email.address)).filter(usableEmail))];
}

function linkIdentity(tx: Queryable, owner: User, profile: ExternalProfile, email: string | null, at: Date): void {
  const existing = tx
    .select({ id: oauthIdentity.id })
    .from(oauthIdentity)
    .where(and(eq(oauthIdentity.userId, owner.id), eq(oauthIdentity.provider, profile.provider)))
    .get();
  // One account per provider per user: a second external account with the same verified
  // address is refused rather than silently replacing the first link.
  if (existing) throw fail('account_conflict', 'this Panel account is already linked to another account at this provider');
  tx.insert(oauthIdentity).values({ userId: owner.id, provider: profile.provider, subject: profile.subject, email, lastUsedAt: at }).run();
}

/** The user behind the external account: linked, linked now by verified e-mail, or created. */
export function resolveExternalUser(ctx: OAuthContext, profile: ExternalProfile): User {
  const now = ctx.clock.now();
  const verified = verifiedEmails(profile);
  return ctx.db.transaction((tx) => {
    const linked = tx
      .select({ link: oauthIdentity, user })
      .from(oauthIdentity)
      .innerJoin(user, eq(user.id, oauthIdentity.userId))
      .where(and(eq(oauthIdentity.provider, profile.provider), eq(oauthIdentity.subject, profile.subject)))
      .get();
    if (linked) {
      tx.update(oauthIdentity).set({ lastUsedAt: now, email: verified[0] ?? linked.link.email }).where(eq(oauthIdentity.id, linked.link.id)).run();
      return linked.user;
    }
    for (const address of verified) {
      const existing = findUserByEmail(tx, address);
      if (existing) {
        linkIdentity(tx, existing, profile, address, now);
        return existing;
      }
    }
    if (verified.length === 0) throw fail('email_not_verified', 'the provider reports no verified e-mail address for this account');
    if (!ctx.signUpEnabled) throw fail('signup_disabled', 'no Panel account has this e-mail address, and sign-up is disabled');
    const email = verified[0]!;
    const created = tx.insert(user).values({ email, displayName: profile.displayName }).returning().get();
    // createOrganization nests its own transaction (a savepoint inside this one).
    createOrganization(tx as unknown as Db, { name: (profile.displayName ?? email.split('@')[0]!).slice(0, 255), ownerUserId: created.id });
    linkIdentity(tx, created, profile, email, now);
    return created;
  });
}
