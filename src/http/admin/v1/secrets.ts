import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { reencryptAll } from '../../../domain/secrets/reencrypt.ts';
import { adminGuard } from '../../plugins/admin-guard.ts';
import { errorResponses } from '../../schemas.ts';
import { ReencryptReport } from '../../../contract/operations.ts';

/** Key rotation: re-seals every stored secret under the ring's current key (idempotent, resumable). */
export const adminSecretsRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/secrets' }).use(adminGuard(deps)).post(
    '/reencrypt',
    ({ actor }) => {
      const report = reencryptAll(deps.db, deps.keyring);
      deps.logger.info('secrets re-encrypted', { userId: actor.userId, currentKeyId: deps.keyring.currentKeyId, resealed: report.resealed, failed: report.failed });
      return { currentKeyId: deps.keyring.currentKeyId, ...report };
    },
    {
      response: { 200: ReencryptReport, ...errorResponses('unauthenticated', 'forbidden') },
      detail: { summary: 'Re-seal every stored secret under the current root key (superadmin)' },
    },
  );
