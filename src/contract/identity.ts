/** Users, sign-in (password, second factor, passkeys, OAuth), the account and its sessions. */
import * as v from 'valibot';
import { Text, Timestamp, Timestamps } from './common.ts';
import { membershipRoles, secondFactorMethods } from './enums.ts';

/** Upper bound so a multi-megabyte "password" cannot be used to burn CPU; refused before hashing. */
export const PASSWORD_MAX_LENGTH = 1024;
/** A sign-in younger than this may plant lasting credentials (passkeys, API tokens, TOTP). */
export const RECENT_SIGN_IN_MS = 15 * 60_000;

export const Email = v.pipe(v.string(), v.maxLength(320, 'must be at most 320 characters'), v.email('must be an e-mail address'));
/** Any password at sign-in; the policy (12+ characters, not the e-mail) applies where one is set. */
export const Password = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`));
export const DisplayName = Text(255);
export const OrganizationName = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));
export const Code = Text(64);
export const ChallengeEnvelope = Text(4096);
export const Role = v.picklist(membershipRoles, 'must be owner, admin or member');

export const User = v.object({ id: v.string(), email: v.string(), displayName: v.nullable(v.string()), isSuperadmin: v.boolean(), ...Timestamps });
export type User = v.InferOutput<typeof User>;

export const SecondFactorMethods = v.array(v.picklist(secondFactorMethods));
export const SignedIn = v.object({ status: v.literal('signed_in'), user: User });
export type SignedIn = v.InferOutput<typeof SignedIn>;
export const SignInResult = v.variant('status', [
  SignedIn,
  v.object({
    status: v.literal('two_factor_required'),
    /** A `pn2fa` envelope: send it back with the code. Expires after five minutes. */
    challenge: v.string(),
    expiresAt: Timestamp,
    methods: SecondFactorMethods,
  }),
]);
export type SignInResult = v.InferOutput<typeof SignInResult>;

export const SignInRequest = v.object({ email: Email, password: Password });
export const SecondStepRequest = v.object({ challenge: ChallengeEnvelope, code: Code });
export const SignUpRequest = v.object({ email: Email, password: Password, organizationName: OrganizationName, displayName: v.optional(DisplayName) });
export type SignUpRequest = v.InferInput<typeof SignUpRequest>;
/** Sign-up and install answer the new user, signed in, and their organization. */
export const SignedUp = v.object({ user: User, organizationId: v.string() });
export type SignedUp = v.InferOutput<typeof SignedUp>;

export const SessionSummary = v.object({
  user: User,
  via: v.picklist(['session', 'token']),
  secondFactors: SecondFactorMethods,
  memberships: v.array(v.object({ organizationId: v.string(), organizationName: v.string(), role: Role })),
});
export type SessionSummary = v.InferOutput<typeof SessionSummary>;

export const PasswordChange = v.object({
  currentPassword: v.optional(Password),
  newPassword: Password,
  revokeApiTokens: v.optional(
    v.pipe(v.boolean(), v.description('also delete every API token this user created, in every organization (default false: tokens keep working)')),
  ),
});
export type PasswordChange = v.InferInput<typeof PasswordChange>;
export const CodeRequest = v.object({ code: Code });
export const TotpEnrolment = v.object({ secret: v.string(), uri: v.string() });
export type TotpEnrolment = v.InferOutput<typeof TotpEnrolment>;
export const RecoveryCodes = v.object({ recoveryCodes: v.array(v.string()) });
export type RecoveryCodes = v.InferOutput<typeof RecoveryCodes>;

export const AccountSession = v.object({
  id: v.string(),
  current: v.boolean(),
  createdAt: Timestamp,
  lastSeenAt: v.nullable(Timestamp),
  expiresAt: Timestamp,
  createdIp: v.nullable(v.string()),
  userAgent: v.nullable(v.string()),
});
export type AccountSession = v.InferOutput<typeof AccountSession>;

const Base64Url = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`), v.regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url'));
export const PasskeyName = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));

/** The browser's PublicKeyCredential of navigator.credentials.create(), as JSON (RegistrationResponseJSON). */
const RegistrationResponse = v.looseObject({
  id: Base64Url(1400),
  rawId: Base64Url(1400),
  type: v.literal('public-key'),
  response: v.looseObject({
    clientDataJSON: Base64Url(16_384),
    attestationObject: Base64Url(131_072),
    transports: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(32))), v.maxLength(16))),
  }),
  clientExtensionResults: v.optional(v.record(v.string(), v.unknown()), {}),
  authenticatorAttachment: v.optional(v.string()),
});

/** The browser's PublicKeyCredential of navigator.credentials.get(), as JSON (AuthenticationResponseJSON). */
const AuthenticationResponse = v.looseObject({
  id: Base64Url(1400),
  rawId: Base64Url(1400),
  type: v.literal('public-key'),
  response: v.looseObject({
    clientDataJSON: Base64Url(16_384),
    authenticatorData: Base64Url(16_384),
    signature: Base64Url(2048),
    userHandle: v.optional(Base64Url(256)),
  }),
  clientExtensionResults: v.optional(v.record(v.string(), v.unknown()), {}),
  authenticatorAttachment: v.optional(v.string()),
});

export const PasskeySignInStart = v.optional(v.object({ twoFactorChallenge: v.optional(ChallengeEnvelope) }));
export const PasskeySignIn = v.object({ challenge: ChallengeEnvelope, response: AuthenticationResponse, twoFactorChallenge: v.optional(ChallengeEnvelope) });
export const PasskeyRegistration = v.object({ challenge: ChallengeEnvelope, response: RegistrationResponse, name: v.optional(PasskeyName) });
export const PasskeyRename = v.object({ name: PasskeyName });

/** A WebAuthn ceremony: options for the browser and the envelope to send back. */
export const Ceremony = v.object({
  /** PublicKeyCredentialCreationOptionsJSON / PublicKeyCredentialRequestOptionsJSON for the browser. */
  options: v.looseObject({ challenge: v.string() }),
  /** A `pnwebauthn` envelope: send it back with the response. Single use, five minutes. */
  challenge: v.string(),
  expiresAt: Timestamp,
});
export type Ceremony = v.InferOutput<typeof Ceremony>;

export const Passkey = v.object({
  id: v.string(),
  name: v.string(),
  deviceType: v.nullable(v.string()),
  isBackedUp: v.boolean(),
  transports: v.array(v.string()),
  lastUsedAt: v.nullable(Timestamp),
  ...Timestamps,
});
export type Passkey = v.InferOutput<typeof Passkey>;

export const oauthProviderIds = ['github', 'oidc'] as const;
export const OAuthProvider = v.object({ id: v.picklist(oauthProviderIds), name: v.string() });
export const OAuthProviders = v.object({ data: v.array(OAuthProvider) });
export type OAuthProviders = v.InferOutput<typeof OAuthProviders>;
export type OAuthProvider = v.InferOutput<typeof OAuthProvider>;
