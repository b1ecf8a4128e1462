/**
 * Projects: one application described by one Compose document, owned by a workspace. Names are
 * unique per organization after trimming and a full Unicode case fold; the component names of
 * the platform's own projects are reserved. A new project starts with one environment named by
 * the organization default. Platform projects (a non-null component) are read-only to clients.
 */
import { type JsonObject, type Project, projectComponents } from '../../db/schema/index.ts';
import { caseFold } from '../../lib/case-fold.ts';
import { conflict, forbidden, validationFailed } from '../../lib/errors.ts';
import { type Access, type Actor, authorize, loadFor, inOrganization } from '../actor.ts';
import { baseOptionsForWrite, reconcileProject } from '../compose/service.ts';
import { findOrganization } from '../organizations/queries.ts';
import { requireServerOf } from '../servers/service.ts';
import { cacheableList } from '../shared/cacheable-list.ts';
import { deleteRestricted, hasDependents, type Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import { findWorkspace } from '../workspaces/queries.ts';
import { loadWorkspace } from '../workspaces/service.ts';
import {
  deleteProjectRow,
  findProject,
  insertProjectWithEnvironment,
  listProjectsOf,
  type ProjectParents,
  projectHasEnvironments,
  projectNamesOf,
  updateProjectRow,
} from './queries.ts';

/** `metadata.type` values; `system` is written by the platform only. */
export const PROJECT_TYPES = ['docker-compose', 'managed', 'template', 'system'] as const;
export const RESERVED_PROJECT_NAMES: readonly string[] = projectComponents;
export const MAX_PROJECT_NAME_LENGTH = 255;
export const FIRST_ENVIRONMENT_DESCRIPTION = 'Default environment';

/** The form project names are compared in: trimmed, NFC-normalized, full Unicode case folding. */
export const foldProjectName = (name: string): string => caseFold(name.trim().normalize('NFC')).normalize('NFC');

export interface ProjectOptions extends JsonObject {
  compose?: JsonObject;
  containerNaming?: 'uuid' | 'custom';
  defaultServerId?: string | null;
  composeSource?: JsonObject;
}

export interface ProjectFields {
  name?: string | null;
  description?: string | null;
  metadata?: JsonObject | null;
  options?: ProjectOptions | null;
}

export function loadProject(db: Queryable, actor: Actor, id: string, access: Access = 'read'): Project {
  return loadFor(actor, access, 'project', findProject(db, id));
}

/** Platform projects (component set, such as the servers' ingress) are written and deployed by Panel alone. */
export function refusePlatformProject(project: Project): void {
  if (project.component !== null) throw forbidden('platform projects are managed by the platform');
}

function loadClientProject(db: Queryable, actor: Actor, id: string): Project {
  const row = loadProject(db, actor, id, 'write');
  refusePlatformProject(row);
  return row;
}

/** The projects of a workspace or of an organization, a page at a time: the same for every caller who may read that. */
export const projectList = (db: Queryable) =>
  cacheableList<ProjectParents & PageRequest, Project>(db, ['project'], {
    authorize(actor, query) {
      if (query.workspaceId) loadWorkspace(db, actor, query.workspaceId);
      else if (query.organizationId) authorize(actor, query.organizationId, 'read', 'organization');
      else throw validationFailed('workspaceId or organizationId is required', 'workspaceId');
    },
    page: (query) => listProjectsOf(db, query, query),
  });

/** Stored trimmed and NFC-normalized; 1 to 255 characters once trimmed. */
function normalizeName(name: string | null | undefined): string | null | undefined {
  if (name === null || name === undefined) return name;
  const normalized = name.trim().normalize('NFC');
  const length = [...normalized].length;
  if (length === 0 || length > MAX_PROJECT_NAME_LENGTH) {
    throw validationFailed(`must be 1 to ${MAX_PROJECT_NAME_LENGTH} characters once trimmed`, 'name');
  }
  return normalized;
}

function assertNameFree(db: Queryable, organizationId: string, name: string, exceptId?: string): void {
  const folded = foldProjectName(name);
  if (RESERVED_PROJECT_NAMES.includes(folded)) {
    throw conflict('project_name_in_use', `the project name '${name}' is reserved for a platform project`, 'name');
  }
  if (projectNamesOf(db, organizationId, exceptId).some((other) => foldProjectName(other) === folded)) {
    throw conflict('project_name_in_use', `a project named '${name}' already exists in this organization`, 'name');
  }
}

function checkFields(db: Queryable, organizationId: string, fields: ProjectFields): void {
  if (fields.metadata?.type === 'system') throw validationFailed("'system' projects are created by the platform only", 'metadata.type');
  const serverId = fields.options?.defaultServerId;
  if (serverId) requireServerOf(db, organizationId, serverId);
}

function assertUserWorkspace(kind: string): void {
  if (kind === 'panel') throw forbidden('the platform workspace holds platform projects only');
}

/** The project and its first environment are written in one transaction. */
export function createProject(db: Queryable, actor: Actor, input: ProjectFields & { workspaceId: string }): Project {
  const home = loadWorkspace(db, actor, input.workspaceId, 'write');
  assertUserWorkspace(home.kind);
  const name = normalizeName(input.name);
  if (name) assertNameFree(db, home.organizationId, name);
  checkFields(db, home.organizationId, input);
  const { defaultEnvironmentName } = findOrganization(db, home.organizationId)!;
  const compose = baseOptionsForWrite(db, { organizationId: home.organizationId, component: null }, input.options, null);
  return db.transaction((tx) => {
    const row = insertProjectWithEnvironment(
      tx,
      {
        workspaceId: home.id,
        organizationId: home.organizationId,
        name,
        description: input.description,
        metadata: input.metadata,
        options: compose.options,
      },
      { name: defaultEnvironmentName, description: FIRST_ENVIRONMENT_DESCRIPTION },
    );
    return compose.composeChanged ? reconcileProject(tx, row, null) : row;
  });
}

/** Moves stay inside the organization: a workspace of any other organization is 404. */
export function updateProject(db: Queryable, actor: Actor, id: string, changes: ProjectFields & { workspaceId?: string }): Project {
  const row = loadClientProject(db, actor, id);
  if (changes.workspaceId !== undefined && changes.workspaceId !== row.workspaceId) {
    assertUserWorkspace(inOrganization(findWorkspace(db, changes.workspaceId), row.organizationId, 'workspace').kind);
  }
  const name = normalizeName(changes.name);
  if (name) assertNameFree(db, row.organizationId, name, row.id);
  checkFields(db, row.organizationId, changes);
  const compose = baseOptionsForWrite(db, row, changes.options, row.options);
  const update = { ...changes, name, options: compose.options };
  if (Object.values(update).every((value) => value === undefined)) return row;
  return db.transaction((tx) => {
    const updated = updateProjectRow(tx, id, update);
    return compose.composeChanged ? reconcileProject(tx, updated, compose.previous) : updated;
  });
}

/** Restrict: environments must go first; variables, principals and markers of the project cascade. */
export function deleteProject(db: Queryable, actor: Actor, id: string): void {
  loadClientProject(db, actor, id);
  if (projectHasEnvironments(db, id)) throw hasDependents('project', 'environments');
  deleteRestricted('project', () => deleteProjectRow(db, id));
}
