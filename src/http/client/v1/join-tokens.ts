/**
 * Join tokens, for enrolling servers (organization admins):
 *   POST   /join-tokens {organizationId, name?, expiresInSeconds?}  -> the token, the one-line
 *          install-and-join command and `panel daemon join …`, shown once, with warnings
 *   GET    /join-tokens?organizationId=                      every token of the organization, with its state
 *   DELETE /join-tokens/:id                                  revoke
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { JoinToken } from '../../../db/schema/index.ts';
import {
  createJoinToken,
  joinCommandsFor,
  joinWarnings,
  joinTokenState,
  listJoinTokens,
  MAX_JOIN_TOKEN_TTL_SECONDS,
  revokeJoinToken,
} from '../../../domain/join-tokens/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { iso, isoOrNull, timestampsOf } from '../../present.ts';
import { errorResponses, IdParams, ListQuery, listEnvelope, NoContent, Uuid } from '../../schemas.ts';

const JoinTokenSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  createdByUserId: v.string(),
  state: v.picklist(['active', 'used', 'expired']),
  expiresAt: v.string(),
  usedAt: v.nullable(v.string()),
  /** The server its enrollment created or re-enrolled. */
  serverId: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});

const CreatedSchema = v.object({
  ...JoinTokenSchema.entries,
  token: v.string(),
  /** One line to run as root on the new server: installs this executable (checksum verified) as a systemd unit and joins. */
  command: v.string(),
  /** `panel daemon join …` for a server that already has the executable. */
  joinCommand: v.string(),
  /** What keeps other machines from using the command (a loopback PANEL_PUBLIC_URL). */
  warnings: v.array(v.string()),
});

const CreateBody = v.strictObject(
  {
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
  },
  'unknown field',
);

export const joinTokenRoutes = (deps: AppDeps) => {
  const present = (row: JoinToken) => ({
    id: row.id,
    organizationId: row.organizationId,
    createdByUserId: row.createdByUserId,
    state: joinTokenState(row, deps.clock.now()),
    expiresAt: iso(row.expiresAt),
    usedAt: isoOrNull(row.usedAt),
    serverId: row.serverId,
    ...timestampsOf(row),
  });

  return new Elysia({ prefix: '/join-tokens', detail: { tags: ['servers'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        const { row, token } = createJoinToken(deps.db, deps.clock, actor, body);
        set.status = 201;
        return { ...present(row), token, ...joinCommandsFor(deps.config.publicUrl, token, { name: body.name }), warnings: joinWarnings(deps.config.publicUrl) };
      },
      {
        body: CreateBody,
        response: { 201: CreatedSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Create a join token for enrolling a server; the token is shown once (default lifetime 1 hour, at most 7 days)' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listJoinTokens(deps.db, actor, query.organizationId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: v.object({ organizationId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(JoinTokenSchema), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: "List the organization's join tokens (never the tokens themselves)" },
      },
    )
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        revokeJoinToken(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Revoke a join token' },
      },
    );
};
