import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { organizationRoutes } from './organizations.ts';

/** The client surface: one file per resource, each protected by the client guard. */
export const clientV1 = (deps: AppDeps) => new Elysia({ prefix: '/api/client/v1' }).use(organizationRoutes(deps));
