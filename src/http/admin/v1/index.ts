/**
 * The admin surface (/api/admin/v1): superadmins only (adminGuard: 401 anonymous, 403 others).
 * Routes such as POST /secrets/reencrypt, POST /local-server/reset-key, POST /backups and
 * PATCH /organizations/{id} (host access on the local server) are mounted here.
 */
import { Elysia } from 'elysia';
import type { ServingDeps } from '../../../deps.ts';
import { adminBackupRoutes } from './backups.ts';
import { adminGuard } from '../../plugins/admin-guard.ts';
import { adminLocalServerRoutes } from './local-server.ts';
import { adminOrganizationRoutes } from './organizations.ts';
import { adminSecretsRoutes } from './secrets.ts';

export const adminV1 = (deps: ServingDeps) =>
  new Elysia({ prefix: '/api/admin/v1', detail: { tags: ['admin'] } })
    .use(adminGuard(deps))
    .use(adminSecretsRoutes(deps))
    .use(adminLocalServerRoutes(deps))
    .use(adminOrganizationRoutes(deps))
    .use(adminBackupRoutes(deps));
