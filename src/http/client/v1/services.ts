import type { AppDeps } from '../../../deps.ts';
import { Service, ServiceListQuery, ServiceUpdate } from '../../../contract/services.ts';
import type { Service as ServiceRow } from '../../../db/schema/index.ts';
import { deleteService, loadService, serviceList, updateService } from '../../../domain/services/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

/** Services are derived from Compose, managed allocation and daemon reports: clients cannot create them. */
export const serviceRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'services',
    schema: Service,
    derive: { name: (row: ServiceRow) => row.name ?? row.composeServiceName },
    guard: clientGuard(deps),
    list: {
      query: ServiceListQuery,
      cached: serviceList(deps.db),
      summary: 'List the services of an environment',
    },
    read: { run: (actor, id) => loadService(deps.db, actor, id), summary: 'Read a service' },
    update: {
      body: ServiceUpdate,
      run: (actor, id, body) => updateService(deps.db, actor, id, body),
      summary: 'Change the name, description, metadata or options of a service',
    },
    remove: {
      run: (actor, id) => deleteService(deps.db, actor, id),
      errors: ['has_dependents'],
      summary: 'Delete a service (409 has_dependents while bindings, tenancies, hostings or containers hold it)',
    },
  });
