/** API tokens (`Authorization: Bearer`) and join tokens (enrolling servers). */
import * as v from 'valibot';
import { ListQuery, strict, Timestamp, Timestamps, Uuid } from './common.ts';
import { Role } from './identity.ts';

export const ApiTokenCreate = v.object({
  organizationId: Uuid,
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters')),
  role: Role,
  expiresAt: v.optional(v.nullable(v.pipe(v.string(), v.isoTimestamp('must be an ISO-8601 timestamp')))),
});
export type ApiTokenCreate = v.InferInput<typeof ApiTokenCreate>;
export const ApiTokenListQuery = v.object({ organizationId: Uuid, ...ListQuery });
export const ApiToken = v.object({
  id: v.string(),
  organizationId: v.string(),
  userId: v.string(),
  name: v.string(),
  role: Role,
  expiresAt: v.nullable(Timestamp),
  lastUsedAt: v.nullable(Timestamp),
  ...Timestamps,
});
export type ApiToken = v.InferOutput<typeof ApiToken>;
/** The answer to a create: the token, shown once. */
export const CreatedApiToken = v.object({ ...ApiToken.entries, token: v.string() });

export const DEFAULT_JOIN_TOKEN_TTL_SECONDS = 60 * 60;
export const MAX_JOIN_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;
export const joinTokenStates = ['active', 'used', 'expired'] as const;

export const JoinTokenCreate = strict({
  organizationId: Uuid,
  /** The new server's name, carried in the command (default: its hostname). */
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'))),
  expiresInSeconds: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be an integer'),
      v.minValue(60, 'must be at least 60 seconds'),
      v.maxValue(MAX_JOIN_TOKEN_TTL_SECONDS, `must be at most ${MAX_JOIN_TOKEN_TTL_SECONDS} seconds (7 days)`),
    ),
  ),
  replacesServerId: v.optional(
    v.pipe(Uuid, v.description('make the token replace this server: re-enrolling its machine (or enrolling new hardware in its place) needs one')),
  ),
});
export type JoinTokenCreate = v.InferInput<typeof JoinTokenCreate>;
export const JoinTokenListQuery = ApiTokenListQuery;
export const JoinToken = v.object({
  id: v.string(),
  organizationId: v.string(),
  createdByUserId: v.string(),
  state: v.picklist(joinTokenStates),
  expiresAt: Timestamp,
  usedAt: v.nullable(Timestamp),
  /** The server its enrollment created or re-enrolled. */
  serverId: v.nullable(v.string()),
  replacesServerId: v.pipe(v.nullable(v.string()), v.description("the server whose record this token's enrollment takes over; null for a new server")),
  ...Timestamps,
});
export type JoinToken = v.InferOutput<typeof JoinToken>;
/** The answer to a create: the token and the commands that use it, shown once. */
export const CreatedJoinToken = v.object({
  ...JoinToken.entries,
  token: v.string(),
  /** One line to run as root on the new server: installs this executable (checksum verified) as a systemd unit and joins. */
  command: v.string(),
  /** `panel daemon join …` for a server that already has the executable. */
  joinCommand: v.string(),
  /** What keeps other machines from using the command (a loopback PANEL_PUBLIC_URL). */
  warnings: v.array(v.string()),
});
export type CreatedJoinToken = v.InferOutput<typeof CreatedJoinToken>;
