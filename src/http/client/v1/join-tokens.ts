/**
 * Join tokens, for enrolling servers (organization admins): create (the token, the one-line
 * install-and-join command with the options chosen, `panel daemon join …`, and warnings, shown once; with replacesServerId the
 * enrollment takes over that server, the only way a machine already enrolled enrolls again),
 * list with their state, revoke.
 */
import type { AppDeps } from '../../../deps.ts';
import { CreatedJoinToken, JoinToken, JoinTokenCreate, JoinTokenListQuery } from '../../../contract/tokens.ts';
import type { JoinToken as JoinTokenRow } from '../../../db/schema/index.ts';
import { createJoinToken, joinCommandsFor, joinTokenState, joinWarnings, listJoinTokens, revokeJoinToken } from '../../../domain/join-tokens/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

export const joinTokenRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'join-tokens',
    schema: JoinToken,
    derive: { state: (row: JoinTokenRow) => joinTokenState(row, deps.clock.now()) },
    guard: clientGuard(deps),
    create: {
      body: JoinTokenCreate,
      run: (actor, body) => {
        const { row, token } = createJoinToken(deps.db, deps.clock, actor, body);
        return { ...row, token, ...joinCommandsFor(deps.config.publicUrl, token, { name: body.name }), warnings: joinWarnings(deps.config.publicUrl) };
      },
      answer: CreatedJoinToken,
      errors: ['machine_is_local'],
      summary: 'Create a join token for enrolling a server; the token is shown once (default lifetime 1 hour, at most 7 days)',
    },
    list: {
      query: JoinTokenListQuery,
      run: (actor, query) => listJoinTokens(deps.db, actor, query.organizationId, query),
      role: 'admin',
      summary: "List the organization's join tokens (never the tokens themselves)",
    },
    remove: { run: (actor, id) => revokeJoinToken(deps.db, actor, id), summary: 'Revoke a join token' },
  });
