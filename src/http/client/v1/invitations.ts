/**
 * Invitations (admins and owners; never a role above the inviter's):
 *   POST   /invitations {organizationId, email, role}  -> the invitation and its token (shown once)
 *   GET    /invitations?organizationId=                 pending invitations
 *   DELETE /invitations/:id                             revoke
 *   POST   /invitations/accept {token, password?}       signed in as the invited e-mail, or create that account
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Invitation } from '../../../db/schema/index.ts';
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from '../../../domain/invitations/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { requestMeta } from '../../plugins/rate-limit.ts';
import { optionalActor } from '../../plugins/guard.ts';
import { assertCookieWriteOrigin, installGate, setSessionCookie } from '../../plugins/session.ts';
import { iso, timestampsOf } from '../../present.ts';
import { errorResponses, IdParams, ListQuery, listEnvelope, Uuid } from '../../schemas.ts';
import { DisplayName, Email, NoContent, Password, presentUser, Role, UserSchema } from './auth-schemas.ts';

const InvitationSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  email: v.string(),
  role: Role,
  invitedByUserId: v.string(),
  expiresAt: v.string(),
  createdAt: v.string(),
  updatedAt: v.string(),
});

const present = (row: Invitation) => ({
  id: row.id,
  organizationId: row.organizationId,
  email: row.email,
  role: row.role,
  invitedByUserId: row.invitedByUserId,
  expiresAt: iso(row.expiresAt),
  ...timestampsOf(row),
});

const TokenString = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(256, 'must be at most 256 characters'));

const acceptRoute = (deps: AppDeps) =>
  new Elysia({ prefix: '/invitations', detail: { tags: ['invitations'] } }).use(installGate(deps)).post(
    '/accept',
    async ({ body, request, server, set }) => {
      assertCookieWriteOrigin(deps, request);
      const result = await acceptInvitation(deps, optionalActor(deps, request), body, requestMeta(server, request));
      if (result.session) setSessionCookie(set, deps, result.session.token);
      return { organizationId: result.organizationId, user: result.session ? presentUser(result.session.user) : null };
    },
    {
      body: v.object({ token: TokenString, password: v.optional(Password), displayName: v.optional(DisplayName) }),
      response: { 200: v.object({ organizationId: v.string(), user: v.nullable(UserSchema) }), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'account_exists', 'already_member', 'email_in_use', 'validation_failed', 'install_required') },
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
            body: v.object({ organizationId: Uuid, email: Email, role: Role }),
            response: { 201: v.object({ ...InvitationSchema.entries, token: v.string() }), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'already_member', 'validation_failed', 'install_required') },
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
            query: v.object({ organizationId: Uuid, ...ListQuery }),
            response: { 200: listEnvelope(InvitationSchema), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed', 'install_required') },
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
