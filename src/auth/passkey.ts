/**
 * WebAuthn (passkeys) through @simplewebauthn/server: the relying party comes from
 * PANEL_PUBLIC_URL (its hostname is the RP ID, its origin the only accepted origin), and the
 * library's errors become plain "did not verify" answers. No database and no HTTP here.
 *
 * Choices:
 * - Attestation `none`: Panel does not restrict authenticator models, so it asks for no
 *   attestation statement (and the browser sends none).
 * - Algorithms: EdDSA, ES256, RS256 (what authenticators actually use). Post-quantum algorithms
 *   are left out until browsers and the library settle them.
 * - Resident keys `preferred`: discoverable credentials allow password-less sign-in, while
 *   security keys without room for one still work as a second factor.
 * - User verification: `required` when a passkey alone signs in (possession + PIN/biometric
 *   make it multi-factor by itself), `discouraged` when it is the second factor after a password
 *   or an external provider, `preferred` at registration.
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/**
 * The library is loaded on the first passkey ceremony, not at start: with its certificate and
 * ASN.1 dependencies it was a fifth of Panel's start-up time and several MB of idle memory that
 * most processes never use (docs/PERFORMANCE.md).
 */
const webauthn = () => import('@simplewebauthn/server');

export type { AuthenticationResponseJSON, RegistrationResponseJSON };

export interface RelyingParty {
  /** The RP ID: the public URL's hostname. Changing it orphans every registered passkey. */
  readonly id: string;
  /** The exact origin browsers report in clientDataJSON. */
  readonly origin: string;
  readonly name: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin, name: 'Panel' };
}

/** COSE algorithm ids: EdDSA, ES256, RS256. */
export const PASSKEY_ALGORITHMS = [-8, -7, -257];
/** How long the browser prompt may stay open; the pnwebauthn envelope lives five minutes. */
const CEREMONY_TIMEOUT_MS = 120_000;
/** The credential id column holds at most 1024 base64url characters. */
export const MAX_CREDENTIAL_ID_LENGTH = 1024;
export const MAX_PUBLIC_KEY_LENGTH = 4096;

const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** base64url of the user id's UTF-8 bytes: the WebAuthn user handle Panel gives its users. */
export const userHandleOf = (userId: string) => Buffer.from(userId, 'utf8').toString('base64url');

export interface StoredCredential {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[] | null;
}

export interface RegisteredCredential {
  credentialId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  isBackedUp: boolean;
}

const descriptorOf = (credential: Pick<StoredCredential, 'credentialId' | 'transports'>) => ({
  id: credential.credentialId,
  ...(credential.transports && credential.transports.length > 0 ? { transports: credential.transports } : {}),
});

export async function registrationOptions(
  rp: RelyingParty,
  user: { id: string; email: string; displayName: string | null },
  existing: readonly Pick<StoredCredential, 'credentialId' | 'transports'>[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { generateRegistrationOptions } = await webauthn();
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userID: new Uint8Array(Buffer.from(user.id, 'utf8')),
    userDisplayName: user.displayName ?? user.email,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    // The browser refuses to make a second credential on an authenticator that holds one.
    excludeCredentials: existing.map(descriptorOf),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  });
}

/** The new credential when the attestation verifies against `expectedChallenge`; null otherwise. */
export async function checkRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  expectedChallenge: string,
): Promise<RegisteredCredential | null> {
  const { verifyRegistrationResponse } = await webauthn();
  try {
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      expectedType: 'webauthn.create',
      requireUserPresence: true,
      requireUserVerification: false,
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
    if (!result.verified) return null;
    const { credential, credentialDeviceType, credentialBackedUp } = result.registrationInfo;
    const publicKey = Buffer.from(credential.publicKey).toString('base64url');
    if (credential.id.length > MAX_CREDENTIAL_ID_LENGTH || publicKey.length > MAX_PUBLIC_KEY_LENGTH) return null;
    return {
      credentialId: credential.id,
      publicKey,
      counter: credential.counter,
      transports: (response.response.transports ?? []).filter((t) => KNOWN_TRANSPORTS.has(t)),
      deviceType: credentialDeviceType,
      isBackedUp: credentialBackedUp,
    };
  } catch {
    return null;
  }
}

export type UserVerification = 'required' | 'discouraged';

/** Options for navigator.credentials.get(); no `allow` list asks for a discoverable credential. */
export async function authenticationOptions(
  rp: RelyingParty,
  allow: readonly Pick<StoredCredential, 'credentialId' | 'transports'>[] | null,
  userVerification: UserVerification,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification,
    ...(allow === null ? {} : { allowCredentials: allow.map(descriptorOf) }),
  });
}

export interface CheckedAssertion {
  newCounter: number;
  isBackedUp: boolean;
}

/**
 * Verifies an assertion by `stored` against `expectedChallenge`; null when anything is off
 * (signature, origin, RP ID hash, type, challenge, flags, or a signature counter that did not
 * move forward while either side is non-zero: a cloned authenticator).
 */
export async function checkAuthentication(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  expectedChallenge: string,
  stored: StoredCredential,
  userVerification: UserVerification,
): Promise<CheckedAssertion | null> {
  if (response.id !== stored.credentialId) return null;
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      expectedType: 'webauthn.get',
      credential: {
        id: stored.credentialId,
        publicKey: new Uint8Array(Buffer.from(stored.publicKey, 'base64url')),
        counter: stored.counter,
        ...(stored.transports ? { transports: stored.transports } : {}),
      },
      requireUserVerification: userVerification === 'required',
    });
    if (!result.verified) return null;
    return { newCounter: result.authenticationInfo.newCounter, isBackedUp: result.authenticationInfo.credentialBackedUp };
  } catch {
    return null;
  }
}
