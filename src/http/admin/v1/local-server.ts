import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { allowNewLocalDaemonKey } from '../../../domain/servers/local-key.ts';
import { adminGuard } from '../../plugins/admin-guard.ts';
import { iso } from '../../present.ts';
import { errorResponses } from '../../schemas.ts';
import { LocalKeyReset } from '../../../contract/operations.ts';

/**
 * The local server's pinned daemon key (src/domain/servers/local-key.ts): a hello never changes
 * it; a superadmin allows the next local hello to bring a new one (the CLI equivalent is
 * `panel local-daemon reset-key`).
 */
export const adminLocalServerRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/local-server' }).use(adminGuard(deps)).post(
    '/reset-key',
    ({ actor }) => {
      const reset = allowNewLocalDaemonKey(deps.db, deps.clock.now());
      deps.logger.warn('the local daemon key may be replaced by the next local hello', { userId: actor.userId, serverId: reset.serverId, pinnedKeyId: reset.pinnedKeyId });
      return { ...reset, resetAt: iso(reset.resetAt) };
    },
    {
      response: { 200: LocalKeyReset, ...errorResponses('unauthenticated', 'forbidden', 'not_found') },
      detail: {
        summary: "Allow the local daemon's next connection to replace its pinned key (superadmin)",
        description: 'The local daemon key is pinned at its first hello and never changed by a hello. After a reset, the next hello of the local daemon (which still needs the local daemon credential) pins its key; the current key stays in use until then.',
      },
    },
  );
