import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { reencryptAll } from '../../../domain/secrets/reencrypt.ts';
import { adminGuard } from '../../plugins/admin-guard.ts';
import { errorResponses } from '../../schemas.ts';

const KeyIdCountsSchema = v.pipe(v.record(v.string(), v.number()), v.description('sealed values per key id'));
const ReencryptReportSchema = v.object({
  currentKeyId: v.string(),
  before: KeyIdCountsSchema,
  after: KeyIdCountsSchema,
  resealed: v.number(),
  failed: v.pipe(v.number(), v.description('values that could not be opened with the key ring; left untouched')),
});

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
      response: { 200: ReencryptReportSchema, ...errorResponses('unauthenticated', 'forbidden') },
      detail: { summary: 'Re-seal every stored secret under the current root key (superadmin)' },
    },
  );
