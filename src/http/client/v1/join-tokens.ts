/**
 * Join tokens, for enrolling servers (organization admins):
 *   POST   /join-tokens {organizationId, expiresInSeconds?, replacesServerId?}  -> the token and
 *          the exact `panel daemon join <publicUrl> --token <T>` command, shown once; with
 *          replacesServerId the enrollment takes over that server (the only way a machine
 *          already enrolled enrolls again)
 *   GET    /join-tokens?organizationId=                      every token of the organization, with its state
 *   DELETE /join-tokens/:id                                  revoke
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { JoinToken } from '../../../db/schema/index.ts';
import {
  createJoinToken,
  joinCommandFor,
  joinTokenState,
  listJoinTokens,
  revokeJoinToken,
} from '../../../domain/join-tokens/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { iso, isoOrNull, timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { CreatedJoinToken, JoinToken as JoinTokenResponse, JoinTokenCreate, JoinTokenListQuery } from '../../../contract/tokens.ts';

export const joinTokenRoutes = (deps: AppDeps) => {
  const present = (row: JoinToken) => ({
    id: row.id,
    organizationId: row.organizationId,
    createdByUserId: row.createdByUserId,
    state: joinTokenState(row, deps.clock.now()),
    expiresAt: iso(row.expiresAt),
    usedAt: isoOrNull(row.usedAt),
    serverId: row.serverId,
    replacesServerId: row.replacesServerId,
    ...timestampsOf(row),
  });

  return new Elysia({ prefix: '/join-tokens', detail: { tags: ['servers'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        const { row, token } = createJoinToken(deps.db, deps.clock, actor, body);
        set.status = 201;
        return { ...present(row), token, command: joinCommandFor(deps.config.publicUrl, token) };
      },
      {
        body: JoinTokenCreate,
        response: { 201: CreatedJoinToken, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'machine_is_local', 'validation_failed') },
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
        query: JoinTokenListQuery,
        response: { 200: listEnvelope(JoinTokenResponse), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
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
