/**
 * The install surface (self-hosted runtime only; 404 in development). While no organization
 * exists it answers; afterwards every route answers 410 `already_installed`.
 *
 *   GET  /api/install/v1/status     {installed, methods}: which proofs of host access this host offers
 *   POST /api/install/v1/complete   proof (install token or sudo host account), superadmin e-mail
 *                                   and password, organization name -> signed in (Set-Cookie)
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { alreadyInstalled, completeInstall, installStatus, isInstalled } from '../../../domain/identity/install.ts';
import { notFound } from '../../../lib/errors.ts';
import { DisplayName, Email, OrganizationName, Password, presentUser, UserSchema } from '../../client/v1/auth-schemas.ts';
import { requestMeta } from '../../plugins/rate-limit.ts';
import { assertCookieWriteOrigin, setSessionCookie } from '../../plugins/session.ts';
import { errorResponses } from '../../schemas.ts';

const Proof = v.variant('kind', [
  v.object({ kind: v.literal('token'), token: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(256, 'must be at most 256 characters')) }),
  v.object({
    kind: v.literal('host'),
    username: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(32, 'must be at most 32 characters')),
    password: Password,
  }),
]);

export const installV1 = (deps: AppDeps) =>
  new Elysia({ prefix: '/api/install/v1', detail: { tags: ['install'] } })
    .onBeforeHandle(() => {
      if (deps.config.runtime !== 'self-hosted') throw notFound('install surface');
      if (isInstalled(deps.db)) throw alreadyInstalled();
    })
    .get('/status', () => installStatus(), {
      response: { 200: v.object({ installed: v.boolean(), methods: v.array(v.picklist(['token', 'host'])) }), ...errorResponses('not_found', 'already_installed') },
      detail: { summary: 'Install wizard state and the ways this host can prove access' },
    })
    .post(
      '/complete',
      async ({ body, request, server, set }) => {
        assertCookieWriteOrigin(deps, request);
        const installed = await completeInstall(deps, deps.config.dataDir, body, requestMeta(server, request));
        setSessionCookie(set, deps, installed.token);
        set.status = 201;
        return { user: presentUser(installed.user), organizationId: installed.organization.id };
      },
      {
        body: v.object({
          proof: Proof,
          email: Email,
          password: Password,
          organizationName: OrganizationName,
          displayName: v.optional(DisplayName),
        }),
        response: {
          201: v.object({ user: UserSchema, organizationId: v.string() }),
          ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'email_in_use', 'already_installed', 'validation_failed', 'rate_limited', 'host_auth_unavailable'),
        },
        detail: { summary: 'Finish the install: the first organization and its superadmin, signed in' },
      },
    );
