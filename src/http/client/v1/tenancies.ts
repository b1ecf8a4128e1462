import type { AppDeps } from '../../../deps.ts';
import { Tenancy, TenancyCreate, TenancyListQuery } from '../../../contract/principals.ts';
import { createTenancy, deleteTenancy, getTenancy, listTenancies } from '../../../domain/tenancies/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

export const tenancyRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'tenancies',
    schema: Tenancy,
    guard: clientGuard(deps),
    create: {
      body: TenancyCreate,
      run: (actor, body) => createTenancy(deps.db, actor, body),
      errors: ['tenancy_exists'],
      summary: 'Make a service run as a system principal',
    },
    list: {
      query: TenancyListQuery,
      run: (actor, query) => listTenancies(deps.db, actor, query),
      summary: 'List tenancies by exactly one of serviceId, principalId',
    },
    read: { run: (actor, id) => getTenancy(deps.db, actor, id), summary: 'Read a tenancy' },
    remove: { run: (actor, id) => deleteTenancy(deps.db, actor, id), summary: 'Remove a tenancy' },
  });
