/**
 * Invitations (admins and owners; never a role above the inviter's):
 *   POST   /invitations {organizationId, email, role}  -> the invitation and its token (shown once)
 *   GET    /invitations?organizationId=                 pending invitations
 *   DELETE /invitations/:id                             revoke
 *   POST   /invitations/accept {token, password?}       signed in as the invited e-mail, or create that account
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { Invitation } from '../../../db/schema/index.ts';
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from '../../../domain/invitations/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { requestMeta } from '../../plugins/client-address.ts';
import { optionalActor } from '../../plugins/guard.ts';
import { assertCookieWriteOrigin, installGate, setSessionCookie } from '../../plugins/session.ts';
import { iso, timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { presentUser } from './auth-schemas.ts';
import { NoContent } from '../../../contract/common.ts';
import { CreatedInvitation, Invitation as InvitationResponse, InvitationAccept, InvitationAccepted, InvitationCreate, InvitationListQuery } from '../../../contract/members.ts';

const present = (row: Invitation) => ({
  id: row.id,
  organizationId: row.organizationId,
  email: row.email,
  role: row.role,
  invitedByUserId: row.invitedByUserId,
  expiresAt: iso(row.expiresAt),
  ...timestampsOf(row),
});

const acceptRoute = (deps: AppDeps) =>
  new Elysia({ prefix: '/invitations', detail: { tags: ['invitations'] } }).use(installGate(deps)).post(
    '/accept',
    async ({ body, request, set }) => {
      assertCookieWriteOrigin(deps, request);
      const result = await acceptInvitation(deps, optionalActor(deps, request), body, requestMeta(request));
      if (result.session) setSessionCookie(set, deps, result.session.token);
      return { organizationId: result.organizationId, user: result.session ? presentUser(result.session.user) : null };
    },
    {
      body: InvitationAccept,
      response: { 200: InvitationAccepted, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'account_exists', 'already_member', 'email_in_use', 'validation_failed', 'install_required') },
      detail: { summary: 'Accept an invitation: signed in as the invited e-mail, or create that account with a password' },
    },
  );

export const invitationRoutes = (deps: AppDeps) =>
  new Elysia()
    .use(acceptRoute(deps))
    .use(
      new Elysia({ prefix: '/invitations', detail: { tags: ['invitations'] } })
        .use(clientGuard(deps))
        .post(
          '/',
          ({ actor, body, set }) => {
            const created = createInvitation(deps, actor, body);
            set.status = 201;
            return { ...present(created.invitation), token: created.token };
          },
          {
            body: InvitationCreate,
            response: { 201: CreatedInvitation, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'already_member', 'validation_failed', 'install_required') },
            detail: { summary: 'Invite an e-mail into an organization; the token is shown once' },
          },
        )
        .get(
          '/',
          ({ actor, query }) => {
            const page = listInvitations(deps.db, actor, query.organizationId, query);
            return { data: page.data.map(present), nextCursor: page.nextCursor };
          },
          {
            query: InvitationListQuery,
            response: { 200: listEnvelope(InvitationResponse), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed', 'install_required') },
            detail: { summary: "An organization's pending invitations (admins and owners)" },
          },
        )
        .delete(
          '/:id',
          ({ actor, params, set }) => {
            revokeInvitation(deps.db, actor, params.id);
            set.status = 204;
          },
          {
            params: IdParams,
            response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed', 'install_required') },
            detail: { summary: 'Revoke a pending invitation' },
          },
        ),
    );
