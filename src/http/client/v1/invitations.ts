/**
 * Invitations (admins and owners; never a role above the inviter's):
 *   POST   /invitations {organizationId, email, role}  -> the invitation and its token (shown once)
 *   GET    /invitations?organizationId=                 pending invitations
 *   DELETE /invitations/:id                             revoke
 *   POST   /invitations/accept {token, password?}       signed in as the invited e-mail, or create that account
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { CreatedInvitation, Invitation, InvitationAccept, InvitationAccepted, InvitationCreate, InvitationListQuery } from '../../../contract/members.ts';
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from '../../../domain/invitations/service.ts';
import { clientGuard, optionalActor } from '../../plugins/guard.ts';
import { requestMeta } from '../../plugins/client-address.ts';
import { assertCookieWriteOrigin, installGate, setSessionCookie } from '../../plugins/session.ts';
import { OPTIONAL_CALLER } from '../../plugins/security.ts';
import { resourceRoutes } from '../../resource.ts';
import { errorResponses } from '../../schemas.ts';
import { presentUser } from './auth-schemas.ts';

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
      response: { 200: InvitationAccepted, ...errorResponses('unauthenticated', 'forbidden', 'invitation_email_mismatch', 'not_found', 'account_exists', 'already_member', 'email_in_use', 'validation_failed', 'install_required') },
      detail: { summary: 'Accept an invitation: signed in as the invited e-mail, or create that account with a password', security: OPTIONAL_CALLER },
    },
  );

export const invitationRoutes = (deps: AppDeps) =>
  new Elysia().use(acceptRoute(deps)).use(
    resourceRoutes({
      collection: 'invitations',
      schema: Invitation,
      guard: clientGuard(deps),
      create: {
        body: InvitationCreate,
        run: (actor, body) => {
          const created = createInvitation(deps, actor, body);
          return { ...created.invitation, token: created.token };
        },
        answer: CreatedInvitation,
        errors: ['already_member'],
        summary: 'Invite an e-mail into an organization (never with a role above your own); the token is shown once',
      },
      list: {
        query: InvitationListQuery,
        run: (actor, query) => listInvitations(deps.db, actor, query.organizationId, query),
        role: 'admin',
        summary: "An organization's pending invitations",
      },
      remove: { run: (actor, id) => revokeInvitation(deps.db, actor, id), summary: 'Revoke a pending invitation' },
    }),
  );
