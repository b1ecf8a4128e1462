import type { AppDeps } from '../../../deps.ts';
import { Workspace, WorkspaceCreate, WorkspaceListQuery, WorkspaceUpdate } from '../../../contract/workspaces.ts';
import { createWorkspace, deleteWorkspace, loadWorkspace, updateWorkspace, workspaceList } from '../../../domain/workspaces/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

export const workspaceRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'workspaces',
    schema: Workspace,
    guard: clientGuard(deps),
    create: {
      body: WorkspaceCreate,
      run: (actor, body) => createWorkspace(deps.db, actor, body),
      errors: ['name_in_use'],
      summary: 'Create a user workspace in an organization',
    },
    list: {
      query: WorkspaceListQuery,
      cached: workspaceList(deps.db),
      summary: 'List the workspaces of an organization',
    },
    read: { run: (actor, id) => loadWorkspace(deps.db, actor, id), summary: 'Read a workspace' },
    update: {
      body: WorkspaceUpdate,
      run: (actor, id, body) => updateWorkspace(deps.db, actor, id, body),
      errors: ['name_in_use'],
      summary: 'Rename or describe a workspace (the platform workspace cannot be renamed)',
    },
    remove: {
      run: (actor, id) => deleteWorkspace(deps.db, actor, id),
      errors: ['has_dependents'],
      summary: 'Delete a workspace (409 has_dependents while it has projects)',
    },
  });
