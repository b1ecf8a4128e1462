/** What the auth routes (and the install surface) share beyond their contract (src/contract/identity.ts). */
import type { User } from '../../../db/schema/index.ts';
import type { ErrorCode } from '../../../contract/errors.ts';
import { RECENT_SIGN_IN_MS } from '../../../contract/identity.ts';

/** OpenAPI description of a route under the recent sign-in rule (requireRecentSignIn, account.ts). */
export const RECENT_SIGN_IN_DOC =
  `Needs a session signed in within the last ${RECENT_SIGN_IN_MS / 60_000} minutes: an older one answers 403 \`reauthentication_required\` ` +
  '(sign in again, then retry); an API token answers 403 `session_required`.';

/** What the recent sign-in rule answers: 403 for an API token, 403 for a stale session. */
export const RECENT_SIGN_IN_ERRORS = ['session_required', 'reauthentication_required'] as const satisfies readonly ErrorCode[];

export const presentUser = (row: Pick<User, 'id' | 'email' | 'displayName' | 'isSuperadmin' | 'createdAt' | 'updatedAt'>) => ({
  id: row.id,
  email: row.email,
  displayName: row.displayName,
  isSuperadmin: row.isSuperadmin,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
