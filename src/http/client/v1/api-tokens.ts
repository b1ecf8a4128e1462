/**
 * API tokens (`Authorization: Bearer`), bound to one organization and a role at most the
 * creator's: create (shown once; a session signed in within 15 minutes only), list (yours;
 * owners: everyone's), revoke.
 */
import type { AppDeps } from '../../../deps.ts';
import { ApiToken, ApiTokenCreate, ApiTokenListQuery, CreatedApiToken } from '../../../contract/tokens.ts';
import { createApiToken, listApiTokens, revokeApiToken } from '../../../domain/api-tokens/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';
import { RECENT_SIGN_IN_DOC, RECENT_SIGN_IN_ERRORS } from './auth-schemas.ts';

export const apiTokenRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'api-tokens',
    schema: ApiToken,
    guard: clientGuard(deps),
    create: {
      body: ApiTokenCreate,
      run: (actor, body) => {
        const created = createApiToken(deps.db, deps.clock, actor, { ...body, expiresAt: body.expiresAt ? new Date(body.expiresAt) : null });
        return { ...created.row, token: created.token };
      },
      answer: CreatedApiToken,
      role: 'member',
      errors: [...RECENT_SIGN_IN_ERRORS],
      summary: 'Create an API token; the token is shown once',
      description: RECENT_SIGN_IN_DOC,
    },
    list: {
      query: ApiTokenListQuery,
      run: (actor, query) => listApiTokens(deps.db, actor, query.organizationId, query),
      summary: 'List API tokens: your own, or every token of the organization for owners',
    },
    remove: { run: (actor, id) => revokeApiToken(deps.db, actor, id), role: 'member', summary: 'Revoke an API token (yours; owners: any of the organization)' },
  });
