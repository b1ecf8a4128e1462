/**
 * POST /api/admin/v1/backups: a consistent copy of the database made by the serving process into
 * `<data dir>/backups/` (src/ops/backups.ts), while every request goes on being answered.
 *
 * Two doors, one handler: on TCP a superadmin; on the daemon unix socket `panel backup` (run on
 * the host as the user Panel runs as) presenting the local daemon credential. Whoever can read
 * that file can read the database beside it, so the socket door grants nothing new.
 */
import { Elysia } from 'elysia';
import type { ServingDeps } from '../../../deps.ts';
import { Backup } from '../../../contract/operations.ts';
import { DomainError } from '../../../lib/errors.ts';
import { adminGuard } from '../../plugins/admin-guard.ts';
import { bearerOf } from '../../plugins/guard.ts';
import { iso } from '../../present.ts';
import { errorResponses } from '../../schemas.ts';

const options = {
  response: { 201: Backup, ...errorResponses('unauthenticated', 'forbidden', 'insufficient_storage') },
  detail: {
    summary: 'Back the database up into the data directory (superadmin)',
    description:
      'Writes a consistent copy of the database to `<data dir>/backups/<name>` from the serving process, on a worker thread: no request waits for it and no write is refused because of it. ' +
      'Backups run one at a time; a second request waits for the first. `panel restore <file>` puts one back (with Panel stopped).',
  },
};

const createBackup = (deps: ServingDeps) => async ({ set }: { set: { status?: number | string } }) => {
  const made = await deps.backups.create();
  deps.logger.info('backup written', { file: made.file, bytes: made.bytes });
  set.status = 201;
  return { name: made.name, bytes: made.bytes, createdAt: iso(made.createdAt) };
};

export const adminBackupRoutes = (deps: ServingDeps) => new Elysia({ prefix: '/backups' }).use(adminGuard(deps)).post('', createBackup(deps), options);

/** The same route on the daemon socket, for `panel backup` while Panel serves. */
export const localBackupRoutes = (deps: ServingDeps) =>
  new Elysia({ prefix: '/api/admin/v1/backups', detail: { tags: ['admin'] } })
    .onBeforeHandle(({ request }) => {
      if (!deps.hub.authenticateLocal(bearerOf(request))) throw new DomainError('unauthenticated', 'the local daemon credential is required on this socket');
    })
    .post('', createBackup(deps), options);
