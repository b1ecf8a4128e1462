import { Elysia } from 'elysia';
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

const daemonRoutes = (deps: ServingDeps) => new Elysia({ name: 'daemon-routes' }).use(daemonV1(deps)).use(daemonSocketRoutes(deps));

/** What the daemon unix socket serves: the local daemon slot, and backups for `panel backup` on the host. */
export const daemonSurfaces = (deps: ServingDeps) => new Elysia({ name: 'daemon-surfaces' }).use(daemonRoutes(deps)).use(localBackupRoutes(deps));

/**
 * The specification's surfaces and WebSocket paths. Each surface's routes live in their own
 * folder; an unknown path under any of them answers 404 with the error body.
 */
export const surfaces = (deps: ServingDeps) =>
  new Elysia({ name: 'surfaces' })
    .use(clientV1(deps))
    .use(installV1(deps))
    .use(adminV1(deps))
    .use(daemonRoutes(deps))
    .use(clientSocketRoutes(deps))
    // The developer namespace has no callers yet: every upgrade is refused.
    .ws('/ws/developer/v1', { beforeHandle: () => { throw unauthenticated(); }, message() {} });
