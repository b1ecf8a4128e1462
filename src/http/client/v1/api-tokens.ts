/**
 * API tokens (`Authorization: Bearer`), bound to one organization and a role at most the
 * creator's:
 *   POST   /api-tokens {organizationId, name, role, expiresAt?}  -> the token, shown once
 *          (a session signed in within 15 minutes only, else 403 reauthentication_required)
 *   GET    /api-tokens?organizationId=                           yours (owners: everyone's)
 *   DELETE /api-tokens/:id                                       revoke
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { ApiToken } from '../../../db/schema/index.ts';
import { createApiToken, listApiTokens, revokeApiToken } from '../../../domain/api-tokens/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { isoOrNull, timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { RECENT_SIGN_IN_DOC } from './auth-schemas.ts';
import { NoContent } from '../../../contract/common.ts';
import { ApiToken as ApiTokenResponse, ApiTokenCreate, ApiTokenListQuery, CreatedApiToken } from '../../../contract/tokens.ts';

const present = (row: ApiToken) => ({
  id: row.id,
  organizationId: row.organizationId,
  userId: row.userId,
  name: row.name,
  role: row.role,
  expiresAt: isoOrNull(row.expiresAt),
  lastUsedAt: isoOrNull(row.lastUsedAt),
  ...timestampsOf(row),
});

export const apiTokenRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/api-tokens', detail: { tags: ['api-tokens'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        const created = createApiToken(deps.db, deps.clock, actor, {
          ...body,
          expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
        });
        set.status = 201;
        return { ...present(created.row), token: created.token };
      },
      {
        body: ApiTokenCreate,
        response: { 201: CreatedApiToken, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed', 'install_required') },
        detail: { summary: 'Create an API token; the token is shown once', description: RECENT_SIGN_IN_DOC },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listApiTokens(deps.db, actor, query.organizationId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: ApiTokenListQuery,
        response: { 200: listEnvelope(ApiTokenResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed', 'install_required') },
        detail: { summary: 'List API tokens: your own, or every token of the organization for owners' },
      },
    )
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        revokeApiToken(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'not_found', 'validation_failed', 'install_required') },
        detail: { summary: 'Revoke an API token' },
      },
    );
