import { Elysia } from 'elysia';
import type { AppDeps } from '../deps.ts';
import { DomainError } from '../lib/errors.ts';
import { adminV1 } from './admin/v1/index.ts';
import { clientV1 } from './client/v1/index.ts';
import { daemonV1 } from './daemon/v1/index.ts';
import { installV1 } from './install/v1/index.ts';
import { clientSocketRoutes } from './ws/client.ts';
import { daemonSocketRoutes } from './ws/daemon.ts';

const unauthenticated = () => new DomainError('unauthenticated', 'authentication required');

/** What the daemon unix socket serves: the local daemon slot needs nothing else. */
export const daemonSurfaces = (deps: AppDeps) => new Elysia({ name: 'daemon-surfaces' }).use(daemonV1(deps)).use(daemonSocketRoutes(deps));

/**
 * The specification's surfaces and WebSocket paths. Each surface's routes live in their own
 * folder; an unknown path under any of them answers 404 with the error body.
 */
export const surfaces = (deps: AppDeps) =>
  new Elysia({ name: 'surfaces' })
    .use(clientV1(deps))
    .use(installV1(deps))
    .use(adminV1(deps))
    .use(daemonSurfaces(deps))
    .use(clientSocketRoutes(deps))
    // The developer namespace has no callers yet: every upgrade is refused.
    .ws('/ws/developer/v1', { beforeHandle: () => { throw unauthenticated(); }, message() {} });
