/**
 * The signed-in user's own account (behind the client guard; API tokens get 403 on the routes
 * that change credentials; * needs a sign-in within 15 minutes, else 403 reauthentication_required):
 *
 *   GET    /auth/session          current user, second factors and memberships
 *   POST   /auth/password         change the password (revokes every session, issues a fresh one);
 *                                 setting a first one (no current password to prove) *
 *   POST   /auth/totp/enrol     * new TOTP secret + otpauth URI (shown once)
 *   POST   /auth/totp/confirm   * {code} -> enabled; ten recovery codes (shown once)
 *   POST   /auth/totp/disable     {code} (TOTP or recovery) -> disabled; sessions revoked, fresh one issued
 *   POST   /auth/recovery-codes   {code} -> ten new recovery codes
 *   GET    /auth/sessions         live sessions
 *   DELETE /auth/sessions/:id     revoke one of them
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { accountSummary, changePassword, requireRecentSignIn, requireSessionActor } from '../../../domain/identity/account.ts';
import { confirmTotp, disableTotp, enrolTotp, regenerateRecoveryCodes } from '../../../domain/identity/second-factor.ts';
import { listSessions, revokeOwnSession } from '../../../domain/identity/sessions.ts';
import { startSession } from '../../../domain/identity/sign-in.ts';
import { findUser } from '../../../domain/identity/users.ts';
import { notFound } from '../../../lib/errors.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { requestMeta } from '../../plugins/client-address.ts';
import { clearSessionCookie, setSessionCookie } from '../../plugins/session.ts';
import { iso, isoOrNull } from '../../present.ts';
import { IdParams } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { presentUser, RECENT_SIGN_IN_DOC, RECENT_SIGN_IN_ERRORS } from './auth-schemas.ts';
import { listEnvelope, NoContent } from '../../../contract/common.ts';
import { AccountSession, CodeRequest, PasswordChange, RecoveryCodes, SessionSummary, TotpEnrolment } from '../../../contract/identity.ts';

export const authAccountRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/auth', detail: { tags: ['auth'] } })
    .use(clientGuard(deps))
    .get(
      '/session',
      ({ actor }) => {
        const summary = accountSummary(deps.db, actor);
        return { user: presentUser(summary.user), via: actor.kind, secondFactors: summary.methods, memberships: summary.memberships };
      },
      {
        response: {
          200: SessionSummary,
          ...errorResponses('unauthenticated', 'install_required'),
        },
        role: 'self',
        detail: { summary: 'The signed-in user, their second factors and organizations' },
      },
    )
    .post(
      '/password',
      async ({ actor, body, request, set }) => {
        const fresh = await changePassword(deps, actor, body, requestMeta(request));
        setSessionCookie(set, deps, fresh.token);
        set.status = 204;
      },
      {
        body: PasswordChange,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', ...RECENT_SIGN_IN_ERRORS, 'wrong_password', 'validation_failed', 'rate_limited', 'install_required') },
        role: 'self',
        detail: {
          summary: 'Change the password; every session is revoked and a fresh one issued; API tokens too when asked',
          description: `With a password already set, currentPassword proves the caller. Setting a first one (no currentPassword): ${RECENT_SIGN_IN_DOC}`,
        },
      },
    )
    .post(
      '/totp/enrol',
      ({ actor, set }) => {
        // The code that confirms proves the new secret only, not the account: a recent sign-in does.
        requireRecentSignIn(deps.db, deps.clock, actor);
        const me = findUser(deps.db, actor.userId);
        if (!me) throw notFound('user');
        set.status = 201;
        return enrolTotp(deps, me.id, me.email);
      },
      {
        response: { 201: TotpEnrolment, ...errorResponses('unauthenticated', 'forbidden', ...RECENT_SIGN_IN_ERRORS, 'totp_already_enabled', 'install_required') },
        role: 'self',
        detail: { summary: 'Start TOTP enrolment: the secret and otpauth URI, shown once', description: RECENT_SIGN_IN_DOC },
      },
    )
    .post(
      '/totp/confirm',
      ({ actor, body, request, set }) => {
        requireRecentSignIn(deps.db, deps.clock, actor);
        return { recoveryCodes: confirmTotp(deps, actor.userId, body.code, requestMeta(request).address) };
      },
      {
        body: CodeRequest,
        response: { 200: RecoveryCodes, ...errorResponses('unauthenticated', 'forbidden', ...RECENT_SIGN_IN_ERRORS, 'totp_not_pending', 'wrong_code', 'validation_failed', 'rate_limited', 'install_required') },
        role: 'self',
        detail: { summary: 'Confirm TOTP with a first code; answers ten recovery codes, shown once', description: RECENT_SIGN_IN_DOC },
      },
    )
    .post(
      '/totp/disable',
      ({ actor, body, request, set }) => {
        requireSessionActor(actor);
        const meta = requestMeta(request);
        disableTotp(deps, actor.userId, body.code, meta.address);
        const me = findUser(deps.db, actor.userId);
        if (!me) throw notFound('user');
        setSessionCookie(set, deps, startSession(deps, me, meta).token);
        set.status = 204;
      },
      {
        body: CodeRequest,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'session_required', 'totp_not_enabled', 'wrong_code', 'validation_failed', 'rate_limited', 'install_required') },
        role: 'self',
        detail: { summary: 'Disable TOTP with a TOTP or recovery code; every session is revoked and a fresh one issued' },
      },
    )
    .post(
      '/recovery-codes',
      ({ actor, body, request, set }) => {
        requireSessionActor(actor);
        return { recoveryCodes: regenerateRecoveryCodes(deps, actor.userId, body.code, requestMeta(request).address) };
      },
      {
        body: CodeRequest,
        response: { 200: RecoveryCodes, ...errorResponses('unauthenticated', 'forbidden', 'session_required', 'totp_not_enabled', 'wrong_code', 'validation_failed', 'rate_limited', 'install_required') },
        role: 'self',
        detail: { summary: 'Replace the recovery codes (proven with a TOTP code); the new ones are shown once' },
      },
    )
    .get(
      '/sessions',
      ({ actor }) => {
        requireSessionActor(actor);
        const rows = listSessions(deps.db, deps.clock, actor.userId);
        return {
          data: rows.map((row) => ({
            id: row.id,
            current: row.id === actor.credentialId,
            createdAt: iso(row.createdAt),
            lastSeenAt: isoOrNull(row.lastSeenAt),
            expiresAt: iso(row.expiresAt),
            createdIp: row.createdIp,
            userAgent: row.userAgent,
          })),
          nextCursor: null,
        };
      },
      {
        response: { 200: listEnvelope(AccountSession), ...errorResponses('unauthenticated', 'forbidden', 'session_required', 'install_required') },
        role: 'self',
        detail: { summary: "The signed-in user's live sessions" },
      },
    )
    .delete(
      '/sessions/:id',
      ({ actor, params, set }) => {
        requireSessionActor(actor);
        revokeOwnSession(deps.db, actor.userId, params.id);
        if (params.id === actor.credentialId) clearSessionCookie(set, deps);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'session_required', 'not_found', 'validation_failed', 'install_required') },
        role: 'self',
        detail: { summary: 'Revoke one of your sessions' },
      },
    );
