import { type AnyElysia, Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { apiTokenRoutes } from './api-tokens.ts';
import { authAccountRoutes } from './auth-account.ts';
import { authOAuthRoutes } from './auth-oauth.ts';
import { authPasskeyRoutes } from './auth-passkeys.ts';
import { authRoutes } from './auth.ts';
import { invitationRoutes } from './invitations.ts';
import { joinTokenRoutes } from './join-tokens.ts';
import { membershipRoutes } from './memberships.ts';
import { bindingRoutes } from './bindings.ts';
import { certificateAuthorityRoutes } from './certificate-authority.ts';
import { certificateRoutes } from './certificates.ts';
import { composeRoutes } from './compose.ts';
import { containerRoutes } from './containers.ts';
import { deployRoutes } from './deploy.ts';
import { deploymentRoutes } from './deployments.ts';
import { deployPreviewRoutes } from './deploy-preview.ts';
import { environmentRoutes } from './environments.ts';
import { fabricRoutes } from './fabric.ts';
import { hostingRoutes } from './hostings.ts';
import { managedRoutes } from './managed.ts';
import { markerRoutes } from './markers.ts';
import { organizationRoutes } from './organizations.ts';
import { principalRoutes } from './principals.ts';
import { projectRoutes } from './projects.ts';
import { serverRoutes } from './servers.ts';
import { serviceRoutes } from './services.ts';
import { tagRoutes } from './tags.ts';
import { tenancyRoutes } from './tenancies.ts';
import { variableRoutes } from './variables.ts';
import { workspaceRoutes } from './workspaces.ts';

/**
 * The client surface: one file per resource, each protected by the client guard. Typed as
 * AnyElysia: the chained route types of every resource exceed TypeScript's instantiation depth
 * (TS2589) once composed into the app, and nothing reads them.
 */
export const clientV1 = (deps: AppDeps): AnyElysia =>
  new Elysia({ prefix: '/api/client/v1' })
    .use(organizationRoutes(deps))
    .use(workspaceRoutes(deps))
    .use(projectRoutes(deps))
    .use(environmentRoutes(deps))
    .use(composeRoutes(deps))
    .use(deployPreviewRoutes(deps))
    .use(serviceRoutes(deps))
    .use(hostingRoutes(deps))
    .use(certificateRoutes(deps))
    .use(certificateAuthorityRoutes(deps))
    .use(containerRoutes(deps))
    .use(serverRoutes(deps))
    .use(fabricRoutes(deps))
    .use(tagRoutes(deps))
    .use(markerRoutes(deps))
    .use(variableRoutes(deps))
    .use(managedRoutes(deps))
    .use(principalRoutes(deps))
    .use(tenancyRoutes(deps))
    .use(bindingRoutes(deps))
    .use(authRoutes(deps))
    .use(authAccountRoutes(deps))
    .use(authPasskeyRoutes(deps))
    .use(authOAuthRoutes(deps))
    .use(membershipRoutes(deps))
    .use(invitationRoutes(deps))
    .use(apiTokenRoutes(deps))
    .use(joinTokenRoutes(deps))
    .use(deployRoutes(deps))
    .use(deploymentRoutes(deps));
