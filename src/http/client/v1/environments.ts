import type { AppDeps } from '../../../deps.ts';
import { Environment, EnvironmentCreate, EnvironmentListQuery, EnvironmentUpdate } from '../../../contract/environments.ts';
import { createEnvironment, deleteEnvironment, environmentList, loadEnvironment } from '../../../domain/environments/service.ts';
import { changeEnvironment } from '../../../domain/ingress/writes.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

/** An overlay written through `options.compose` is parsed, checked and reconciled like the compose endpoint's. */
const COMPOSE_WRITE_ERRORS = ['has_dependents', 'hostname_in_use', 'compose_invalid', 'host_port_conflict'] as const;

export const environmentRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'environments',
    schema: Environment,
    guard: clientGuard(deps),
    create: {
      body: EnvironmentCreate,
      run: (actor, body) => createEnvironment(deps.db, actor, body),
      errors: COMPOSE_WRITE_ERRORS,
      summary: 'Create an environment in a project',
    },
    list: {
      query: EnvironmentListQuery,
      cached: environmentList(deps.db),
      summary: 'List the environments of a project',
    },
    read: { run: (actor, id) => loadEnvironment(deps.db, actor, id), summary: 'Read an environment' },
    update: {
      body: EnvironmentUpdate,
      run: (actor, id, body) => changeEnvironment({ ...deps, notify: deps.hub.notifier }, actor, id, body),
      errors: COMPOSE_WRITE_ERRORS,
      summary: 'Change an environment; serverId sets or (null) clears the placement pin',
    },
    remove: {
      run: (actor, id) => deleteEnvironment(deps.db, actor, id),
      errors: ['has_dependents'],
      summary: 'Delete an environment (409 has_dependents while it has services)',
    },
  });
