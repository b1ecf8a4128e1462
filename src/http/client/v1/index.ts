import type { AppDeps } from '../../../deps.ts';
import { type LazySurface, lazyRouteGroups, type RouteGroup } from '../../route-groups.ts';

/**
 * The client surface: one file per resource, each protected by the client guard, registered at
 * the first request under one of the path segments it serves (src/http/route-groups.ts). The
 * segments are checked against the routes each file really adds (index.test.ts).
 */
export const CLIENT_ROUTE_GROUPS: readonly RouteGroup<AppDeps>[] = [
  { segments: ['organizations'], load: async (deps) => (await import('./organizations.ts')).organizationRoutes(deps) },
  { segments: ['workspaces'], load: async (deps) => (await import('./workspaces.ts')).workspaceRoutes(deps) },
  { segments: ['projects'], load: async (deps) => (await import('./projects.ts')).projectRoutes(deps) },
  { segments: ['environments'], load: async (deps) => (await import('./environments.ts')).environmentRoutes(deps) },
  { segments: ['projects', 'environments'], load: async (deps) => (await import('./compose.ts')).composeRoutes(deps) },
  { segments: ['environments'], load: async (deps) => (await import('./deploy-preview.ts')).deployPreviewRoutes(deps) },
  { segments: ['services'], load: async (deps) => (await import('./services.ts')).serviceRoutes(deps) },
  { segments: ['hostings'], load: async (deps) => (await import('./hostings.ts')).hostingRoutes(deps) },
  { segments: ['certificates'], load: async (deps) => (await import('./certificates.ts')).certificateRoutes(deps) },
  { segments: ['organizations'], load: async (deps) => (await import('./certificate-authority.ts')).certificateAuthorityRoutes(deps) },
  { segments: ['containers'], load: async (deps) => (await import('./containers.ts')).containerRoutes(deps) },
  { segments: ['servers'], load: async (deps) => (await import('./servers.ts')).serverRoutes(deps) },
  { segments: ['organizations', 'servers'], load: async (deps) => (await import('./fabric.ts')).fabricRoutes(deps) },
  { segments: ['tags'], load: async (deps) => (await import('./tags.ts')).tagRoutes(deps) },
  { segments: ['markers', 'servers', 'workspaces', 'projects', 'environments', 'services', 'datacenters', 'storages'], load: async (deps) => (await import('./markers.ts')).markerRoutes(deps) },
  { segments: ['variables'], load: async (deps) => (await import('./variables.ts')).variableRoutes(deps) },
  { segments: ['managed'], load: async (deps) => (await import('./managed.ts')).managedRoutes(deps) },
  { segments: ['principals'], load: async (deps) => (await import('./principals.ts')).principalRoutes(deps) },
  { segments: ['tenancies'], load: async (deps) => (await import('./tenancies.ts')).tenancyRoutes(deps) },
  { segments: ['bindings'], load: async (deps) => (await import('./bindings.ts')).bindingRoutes(deps) },
  { segments: ['auth'], load: async (deps) => (await import('./auth.ts')).authRoutes(deps) },
  { segments: ['auth'], load: async (deps) => (await import('./auth-account.ts')).authAccountRoutes(deps) },
  { segments: ['auth'], load: async (deps) => (await import('./auth-passkeys.ts')).authPasskeyRoutes(deps) },
  { segments: ['auth'], load: async (deps) => (await import('./auth-oauth.ts')).authOAuthRoutes(deps) },
  { segments: ['memberships'], load: async (deps) => (await import('./memberships.ts')).membershipRoutes(deps) },
  { segments: ['invitations'], load: async (deps) => (await import('./invitations.ts')).invitationRoutes(deps) },
  { segments: ['api-tokens'], load: async (deps) => (await import('./api-tokens.ts')).apiTokenRoutes(deps) },
  { segments: ['join-tokens'], load: async (deps) => (await import('./join-tokens.ts')).joinTokenRoutes(deps) },
  { segments: ['environments'], load: async (deps) => (await import('./deploy.ts')).deployRoutes(deps) },
  { segments: ['deployments'], load: async (deps) => (await import('./deployments.ts')).deploymentRoutes(deps) },
  { segments: ['deployments'], load: async (deps) => (await import('./deployment-logs.ts')).deploymentLogRoutes(deps) },
  { segments: ['logs'], load: async (deps) => (await import('./logs.ts')).logRoutes(deps) },
  { segments: ['metrics'], load: async (deps) => (await import('./metrics.ts')).metricRoutes(deps) },
  { segments: ['events'], load: async (deps) => (await import('./events.ts')).eventRoutes(deps) },
  { segments: ['organizations'], load: async (deps) => (await import('./webhooks.ts')).webhookRoutes(deps) },
];

export const CLIENT_SURFACE: LazySurface<AppDeps> = { prefix: '/api/client/v1', groups: CLIENT_ROUTE_GROUPS };

export const clientV1 = (deps: AppDeps) => lazyRouteGroups(deps, CLIENT_SURFACE);
