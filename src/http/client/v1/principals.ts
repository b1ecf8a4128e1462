import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { type Principal } from '../../../db/schema/index.ts';
import {
  createPrincipal,
  deletePrincipal,
  getPrincipal,
  listPrincipals,
  updatePrincipal,
  type WrittenPrincipal,
} from '../../../domain/principals/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Principal as PrincipalResponse, PrincipalCreate, PrincipalListQuery, PrincipalUpdate, WrittenPrincipal as WrittenPrincipalResponse } from '../../../contract/principals.ts';

const present = (row: Principal) => ({
  id: row.id,
  organizationId: row.organizationId,
  projectId: row.projectId,
  managedId: row.managedId,
  kind: row.kind,
  provider: row.provider,
  username: row.username,
  appliedUsername: row.appliedUsername,
  password: null,
  hasPassword: row.password !== null,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

/** The one place a generated password is shown: the answer to the write that generated it. */
const presentWritten = ({ principal, generatedPassword }: WrittenPrincipal) =>
  generatedPassword === undefined ? present(principal) : { ...present(principal), generatedPassword };

export const principalRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/principals', detail: { tags: ['principals'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return presentWritten(createPrincipal(deps.db, deps.keyring, actor, body));
      },
      {
        body: PrincipalCreate,
        response: { 201: WrittenPrincipalResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Create a host account (system) or a database user (database)' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listPrincipals(deps.db, actor, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: PrincipalListQuery,
        response: { 200: listEnvelope(PrincipalResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List principals by exactly one of organizationId, projectId, managedId' },
      },
    )
    .get('/:id', ({ actor, params }) => present(getPrincipal(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: PrincipalResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a principal (the password reads back as null)' },
    })
    .patch('/:id', ({ actor, params, body }) => presentWritten(updatePrincipal(deps.db, deps.keyring, actor, params.id, body)), {
      params: IdParams,
      body: PrincipalUpdate,
      response: { 200: WrittenPrincipalResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: 'Change password, metadata or options; a new password rewrites its bindings' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deletePrincipal(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a principal with its tenancies and bindings' },
      },
    );
