/**
 * The admin surface (/api/admin/v1): superadmins only (adminGuard: 401 anonymous, 403 others).
 * Routes such as POST /secrets/reencrypt and POST /local-server/reset-key are mounted here.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { adminGuard } from '../../plugins/admin-guard.ts';
import { adminLocalServerRoutes } from './local-server.ts';
import { adminSecretsRoutes } from './secrets.ts';

export const adminV1 = (deps: AppDeps) =>
  new Elysia({ prefix: '/api/admin/v1', detail: { tags: ['admin'] } }).use(adminGuard(deps)).use(adminSecretsRoutes(deps)).use(adminLocalServerRoutes(deps));
