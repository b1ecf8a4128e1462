/**
 * Workspaces group projects inside one organization. Each organization has exactly one `panel`
 * workspace, made at install, which clients can neither rename nor delete; clients create only
 * `user` workspaces. Names are unique per organization, compared case-insensitively, and the
 * platform workspace's name stays reserved even where that workspace is gone.
 */
import type { Workspace } from '../../db/schema/index.ts';
import { conflict, forbidden } from '../../lib/errors.ts';
import { type Access, type Actor, authorize, loadFor } from '../actor.ts';
import { PANEL_WORKSPACE_NAME } from '../organizations/service.ts';
import { cacheableList } from '../shared/cacheable-list.ts';
import { deleteRestricted, hasDependents, type Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import {
  deleteWorkspaceRow,
  findWorkspace,
  insertWorkspace,
  isWorkspaceNameTaken,
  listWorkspacesOf,
  updateWorkspaceRow,
  workspaceHasProjects,
} from './queries.ts';

export interface WorkspaceFields {
  name?: string | null;
  description?: string | null;
}

export function loadWorkspace(db: Queryable, actor: Actor, id: string, access: Access = 'read'): Workspace {
  return loadFor(actor, access, 'workspace', findWorkspace(db, id));
}

/** The workspaces of an organization, a page at a time: the same for every member. */
export const workspaceList = (db: Queryable) =>
  cacheableList<{ organizationId: string } & PageRequest, Workspace>(db, ['workspace'], {
    authorize: (actor, query) => void authorize(actor, query.organizationId, 'read', 'organization'),
    page: (query) => listWorkspacesOf(db, query.organizationId, query),
  });

function assertNameFree(db: Queryable, organizationId: string, name: string | null | undefined, exceptId?: string): void {
  if (name === null || name === undefined) return;
  if (name.toLowerCase() === PANEL_WORKSPACE_NAME.toLowerCase()) {
    throw conflict('name_in_use', `the workspace name '${PANEL_WORKSPACE_NAME}' is reserved for the platform`, 'name');
  }
  if (isWorkspaceNameTaken(db, organizationId, name, exceptId)) {
    throw conflict('name_in_use', `a workspace named '${name}' already exists in this organization`, 'name');
  }
}

export function createWorkspace(db: Queryable, actor: Actor, input: WorkspaceFields & { organizationId: string }): Workspace {
  authorize(actor, input.organizationId, 'write', 'organization');
  assertNameFree(db, input.organizationId, input.name);
  return insertWorkspace(db, { organizationId: input.organizationId, name: input.name, description: input.description, kind: 'user' });
}

export function updateWorkspace(db: Queryable, actor: Actor, id: string, changes: WorkspaceFields): Workspace {
  const row = loadWorkspace(db, actor, id, 'write');
  const isRename = changes.name !== undefined && changes.name !== row.name;
  if (isRename && row.kind === 'panel') throw forbidden('the platform workspace cannot be renamed');
  if (isRename) assertNameFree(db, row.organizationId, changes.name, row.id);
  if (changes.name === undefined && changes.description === undefined) return row;
  return updateWorkspaceRow(db, id, changes);
}

/** Restrict: a workspace holding projects stays; its variables and markers go with it. */
export function deleteWorkspace(db: Queryable, actor: Actor, id: string): void {
  const row = loadWorkspace(db, actor, id, 'write');
  if (row.kind === 'panel') throw forbidden('the platform workspace cannot be deleted');
  if (workspaceHasProjects(db, id)) throw hasDependents('workspace', 'projects');
  deleteRestricted('workspace', () => deleteWorkspaceRow(db, id));
}
