/**
 * PKCE (RFC 7636, S256) and the OpenID nonce. The verifier and nonce travel inside the sealed
 * `pnoauth` state, so nothing about them is stored server side and nothing is readable in the
 * authorization URL but the S256 challenge.
 */
import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: 43 characters from the unreserved set (RFC 7636 §4.1). */
export const newCodeVerifier = (): string => randomBytes(32).toString('base64url');

/** BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2). */
export const codeChallengeS256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** The ID token must echo it back: binds the token to this very browser flow (OIDC Core §3.1.2.1). */
export const newNonce = (): string => randomBytes(32).toString('base64url');
