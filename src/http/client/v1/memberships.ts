/**
 * Organization members (owners only):
 *   GET    /memberships?organizationId=   list
 *   PATCH  /memberships/:id {role}         change a role (the last owner cannot be demoted)
 *   DELETE /memberships/:id                remove (the last owner cannot be removed)
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { changeMembershipRole, listMemberships, type MemberRow, removeMembership } from '../../../domain/memberships/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { NoContent } from '../../../contract/common.ts';
import { Membership as MembershipResponse, MembershipListQuery, MembershipUpdate } from '../../../contract/members.ts';

const present = (row: MemberRow) => ({
  id: row.id,
  organizationId: row.organizationId,
  userId: row.userId,
  email: row.email,
  displayName: row.displayName,
  role: row.role,
  ...timestampsOf(row),
});

export const membershipRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/memberships', detail: { tags: ['memberships'] } })
    .use(clientGuard(deps))
    .get(
      '/',
      ({ actor, query }) => {
        const page = listMemberships(deps.db, actor, query.organizationId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: MembershipListQuery,
        response: { 200: listEnvelope(MembershipResponse), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed', 'install_required') },
        detail: { summary: "List an organization's members (owners)" },
      },
    )
    .patch('/:id', ({ actor, params, body }) => present(changeMembershipRole(deps.db, actor, params.id, body.role)), {
      params: IdParams,
      body: MembershipUpdate,
      response: { 200: MembershipResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'last_owner', 'validation_failed', 'install_required') },
      detail: { summary: "Change a member's role (owners; the last owner stays owner)" },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        removeMembership(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'last_owner', 'validation_failed', 'install_required') },
        detail: { summary: 'Remove a member and their API tokens (owners; never the last owner)' },
      },
    );
