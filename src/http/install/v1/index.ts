/**
 * The install surface (self-hosted runtime only; 404 in development). While no organization
 * exists it answers; afterwards every route answers 410 `already_installed`.
 *
 *   GET  /api/install/v1/status     {installed, methods}: which proofs of host access this host offers
 *   POST /api/install/v1/complete   proof (install token or sudo host account), superadmin e-mail
 *                                   and password, organization name -> signed in (Set-Cookie)
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { completeInstall, installStatus } from '../../../domain/identity/install.ts';
import { alreadyInstalled, isInstalled } from '../../../domain/identity/installed.ts';
import { notFound } from '../../../lib/errors.ts';
import { presentUser } from '../../client/v1/auth-schemas.ts';
import { SignedUp } from '../../../contract/identity.ts';
import { InstallRequest, InstallStatus } from '../../../contract/install.ts';
import { requestMeta } from '../../plugins/client-address.ts';
import { assertCookieWriteOrigin, setSessionCookie } from '../../plugins/session.ts';
import { errorResponses } from '../../schemas.ts';

export const installV1 = (deps: AppDeps) =>
  new Elysia({ prefix: '/api/install/v1', detail: { tags: ['install'] } })
    .onBeforeHandle(() => {
      if (deps.config.runtime !== 'self-hosted') throw notFound('install surface');
      if (isInstalled(deps.db)) throw alreadyInstalled();
    })
    .get('/status', () => installStatus(), {
      response: { 200: InstallStatus, ...errorResponses('not_found', 'already_installed') },
      detail: { summary: 'Install wizard state and the ways this host can prove access' },
    })
    .post(
      '/complete',
      async ({ body, request, set }) => {
        assertCookieWriteOrigin(deps, request);
        const installed = await completeInstall(deps, deps.config.dataDir, body, requestMeta(request));
        setSessionCookie(set, deps, installed.token);
        set.status = 201;
        return { user: presentUser(installed.user), organizationId: installed.organization.id };
      },
      {
        body: InstallRequest,
        response: {
          201: SignedUp,
          ...errorResponses('unauthenticated', 'invalid_credentials', 'forbidden', 'not_found', 'email_in_use', 'already_installed', 'validation_failed', 'rate_limited', 'host_auth_unavailable'),
        },
        detail: { summary: 'Finish the install: the first organization and its superadmin, signed in' },
      },
    );
