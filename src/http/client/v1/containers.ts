import type { AppDeps } from '../../../deps.ts';
import { Container, ContainerCreate, ContainerListQuery, ContainerUpdate } from '../../../contract/containers.ts';
import { createContainer, deleteContainer, listContainers, loadContainer, updateContainer } from '../../../domain/containers/service.ts';
import { isRemovedContainer } from '../../../domain/reports/apply.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { presenterOf } from '../../present.ts';
import { resourceRoutes } from '../../resource.ts';

/** The container row as GET /containers/:id answers it (also pushed on /ws/client/v1); `isRemoved` is derived. */
const derive = { isRemoved: isRemovedContainer };
export const presentContainer = presenterOf(Container, derive);

export const containerRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'containers',
    schema: Container,
    derive,
    guard: clientGuard(deps),
    create: {
      body: ContainerCreate,
      run: (actor, body) => createContainer(deps.db, actor, body),
      errors: ['ordinal_in_use'],
      summary: 'Record a container of a service on a server',
    },
    list: {
      query: ContainerListQuery,
      run: (actor, query) => listContainers(deps.db, actor, query, query),
      summary: 'List the containers of a service or of a server',
    },
    read: { run: (actor, id) => loadContainer(deps.db, actor, id), summary: 'Read a container' },
    update: {
      body: ContainerUpdate,
      run: (actor, id, body) => updateContainer(deps.db, actor, id, body),
      summary: "Replace a container's free-form metadata or options",
    },
    remove: { run: (actor, id) => deleteContainer(deps.db, actor, id), summary: 'Delete a container record' },
  });
