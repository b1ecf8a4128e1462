import type { AppDeps } from '../../../deps.ts';
import { Project, ProjectCreate, ProjectListQuery, ProjectUpdate } from '../../../contract/projects.ts';
import { createProject, deleteProject, loadProject, projectList } from '../../../domain/projects/service.ts';
import { changeProject } from '../../../domain/ingress/writes.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

/** What a write of `options.compose` can answer: the Compose document is parsed, checked and reconciled. */
const COMPOSE_WRITE_ERRORS = ['project_name_in_use', 'has_dependents', 'hostname_in_use', 'compose_invalid', 'host_port_conflict'] as const;

export const projectRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'projects',
    schema: Project,
    guard: clientGuard(deps),
    create: {
      body: ProjectCreate,
      run: (actor, body) => createProject(deps.db, actor, body),
      errors: COMPOSE_WRITE_ERRORS,
      summary: 'Create a project (with its first environment) in a workspace',
    },
    list: {
      query: ProjectListQuery,
      cached: projectList(deps.db),
      summary: 'List the projects of a workspace or of an organization',
    },
    read: { run: (actor, id) => loadProject(deps.db, actor, id), summary: 'Read a project' },
    update: {
      body: ProjectUpdate,
      run: (actor, id, body) => changeProject({ ...deps, notify: deps.hub.notifier }, actor, id, body),
      errors: COMPOSE_WRITE_ERRORS,
      summary: 'Change a project or move it to another workspace of its organization',
    },
    remove: {
      run: (actor, id) => deleteProject(deps.db, actor, id),
      errors: ['has_dependents'],
      summary: 'Delete a project (409 has_dependents while it has environments)',
    },
  });
