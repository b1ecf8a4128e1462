import type { AnyElysia } from 'elysia';
import type { ServingDeps } from '../deps.ts';
import { localBackupRoutes } from './admin/v1/backups.ts';
import { DomainError } from '../lib/errors.ts';
import { adminV1 } from './admin/v1/index.ts';
import { clientV1 } from './client/v1/index.ts';
import { daemonV1 } from './daemon/v1/index.ts';
import { installV1 } from './install/v1/index.ts';
import { clientSocketRoutes } from './ws/client.ts';
import { daemonSocketRoutes } from './ws/daemon.ts';

const unauthenticated = () => new DomainError('unauthenticated', 'authentication required');

// These are functional plugins (the app is passed in and the routes are added to it), not Elysia
// instances of their own: Elysia adds each route once more at every level a plugin is nested in
// (`use` re-adds the plugin's routes to its parent), and each level keeps its copy of every
// route's hooks. A level fewer is a quarter fewer route registrations at start, and less memory
// (docs/PERFORMANCE.md).
const daemonRoutes = (deps: ServingDeps) => (app: AnyElysia) => app.use(daemonV1(deps)).use(daemonSocketRoutes(deps));

/** What the daemon unix socket serves: the local daemon slot, and backups for `panel backup` on the host. */
export const daemonSurfaces = (deps: ServingDeps) => (app: AnyElysia) => app.use(daemonRoutes(deps)).use(localBackupRoutes(deps));

/**
 * The specification's surfaces and WebSocket paths. Each surface's routes live in their own
 * folder; an unknown path under any of them answers 404 with the error body.
 */
export const surfaces = (deps: ServingDeps) => (app: AnyElysia) =>
  app
    .use(clientV1(deps))
    .use(installV1(deps))
    .use(adminV1(deps))
    .use(daemonRoutes(deps))
    .use(clientSocketRoutes(deps))
    // The developer namespace has no callers yet: every upgrade is refused.
    .ws('/ws/developer/v1', { beforeHandle: () => { throw unauthenticated(); }, message() {} });
