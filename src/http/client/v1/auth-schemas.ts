/** Request and response schemas shared by the auth routes (and the install surface). */
import * as v from 'valibot';
import type { User } from '../../../db/schema/index.ts';
import { PASSWORD_MAX_LENGTH } from '../../../auth/password.ts';
import { RECENT_SIGN_IN_MS } from '../../../domain/identity/account.ts';

export const Email = v.pipe(v.string(), v.maxLength(320, 'must be at most 320 characters'), v.email('must be an e-mail address'));
/** Any password at sign-in; the policy (12+ characters, not the e-mail) applies where one is set. */
export const Password = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`));
export const DisplayName = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));
export const OrganizationName = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));
export const Code = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters'));
export const ChallengeEnvelope = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(4096, 'must be at most 4096 characters'));
export const Role = v.picklist(['owner', 'admin', 'member'], 'must be owner, admin or member');

/** OpenAPI description of a route under the recent sign-in rule (requireRecentSignIn, account.ts). */
export const RECENT_SIGN_IN_DOC =
  `Needs a session signed in within the last ${RECENT_SIGN_IN_MS / 60_000} minutes: an older one answers 403 \`reauthentication_required\` ` +
  '(sign in again, then retry); an API token answers 403 `session_required`.';

export const UserSchema = v.object({
  id: v.string(),
  email: v.string(),
  displayName: v.nullable(v.string()),
  isSuperadmin: v.boolean(),
  createdAt: v.string(),
  updatedAt: v.string(),
});

export const presentUser = (row: Pick<User, 'id' | 'email' | 'displayName' | 'isSuperadmin' | 'createdAt' | 'updatedAt'>) => ({
  id: row.id,
  email: row.email,
  displayName: row.displayName,
  isSuperadmin: row.isSuperadmin,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const SecondFactorMethods = v.array(v.picklist(['totp', 'recovery', 'passkey']));

export const SignedInSchema = v.object({ status: v.literal('signed_in'), user: UserSchema });

export const SignInResultSchema = v.variant('status', [
  SignedInSchema,
  v.object({
    status: v.literal('two_factor_required'),
    /** A `pn2fa` envelope: send it back with the code. Expires after five minutes. */
    challenge: v.string(),
    expiresAt: v.string(),
    methods: SecondFactorMethods,
  }),
]);

export const NoContent = v.undefined();
