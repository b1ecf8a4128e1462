import type { AppDeps } from '../../../app.ts';
import { Hosting, HostingCreate, HostingListQuery, HostingUpdate } from '../../../contract/hostings.ts';
import { createHosting, deleteHosting, listHostings, loadHosting, updateHosting } from '../../../domain/hostings/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

export const hostingRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'hostings',
    schema: Hosting,
    guard: clientGuard(deps),
    create: {
      body: HostingCreate,
      run: (actor, body) => createHosting(deps.db, actor, body),
      errors: ['hostname_in_use'],
      summary: 'Create a routing entry for a service',
    },
    list: {
      query: HostingListQuery,
      run: (actor, query) => listHostings(deps.db, actor, query.serviceId, query),
      summary: 'List the hostings of a service',
    },
    read: { run: (actor, id) => loadHosting(deps.db, actor, id), summary: 'Read a hosting' },
    update: {
      body: HostingUpdate,
      run: (actor, id, body) => updateHosting(deps.db, actor, id, body),
      errors: ['hostname_in_use'],
      summary: 'Change a hosting (options replace the stored ones whole)',
    },
    remove: { run: (actor, id) => deleteHosting(deps.db, actor, id), summary: 'Delete a hosting with its hostnames and variables' },
  });
