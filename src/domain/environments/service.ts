/**
 * Environments: deployable copies of a project. Placement has one source of truth, the
 * `server_id` pin (body field `serverId`): the same facts smuggled into metadata or options are
 * stripped on every write. `generation` belongs to the deploy planner and is never client-written.
 * `options.compose` (the overlay) is parsed, validated and reconciled like a save of the compose
 * endpoint (src/domain/compose); options written without it keep the stored document.
 */
import type { Environment, JsonObject } from '../../db/schema/index.ts';
import { type Access, type Actor, loadFor } from '../actor.ts';
import { checkMovedEnvironment, overlayOptionsForWrite, reconcileEnvironmentOf } from '../compose/service.ts';
import { findProject } from '../projects/queries.ts';
import { loadProject, refusePlatformProject } from '../projects/service.ts';
import { requireServerOf } from '../servers/service.ts';
import { cacheableList } from '../shared/cacheable-list.ts';
import { deleteRestricted, hasDependents, type Queryable } from '../shared/database.ts';
import { stripKeys } from '../shared/json.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import {
  deleteEnvironmentRow,
  environmentHasServices,
  findEnvironment,
  insertEnvironment,
  listEnvironmentsOf,
  type OwnedEnvironment,
  updateEnvironmentRow,
} from './queries.ts';

export const STRIPPED_METADATA_KEYS = ['serverId', 'component'] as const;
export const PLACEMENT_OPTION_KEYS = ['placement', 'serverId'] as const;

export interface EnvironmentFields {
  name?: string | null;
  description?: string | null;
  metadata?: JsonObject | null;
  options?: JsonObject | null;
  /** The placement pin: a server of the same organization, or null to inherit the project default. */
  serverId?: string | null;
}

export function loadEnvironment(db: Queryable, actor: Actor, id: string, access: Access = 'read'): OwnedEnvironment {
  return loadFor(actor, access, 'environment', findEnvironment(db, id));
}

/** The environments of a project, a page at a time: the same for every caller who may read the project. */
export const environmentList = (db: Queryable) =>
  cacheableList<{ projectId: string } & PageRequest, Environment>(db, ['environment'], {
    authorize: (actor, query) => void loadProject(db, actor, query.projectId),
    page: (query) => listEnvironmentsOf(db, query.projectId, query),
  });

/** The columns a client write may set, with platform keys stripped and the pin checked. */
function writableColumns(db: Queryable, organizationId: string, fields: EnvironmentFields) {
  if (fields.serverId) requireServerOf(db, organizationId, fields.serverId);
  return {
    name: fields.name,
    description: fields.description,
    serverId: fields.serverId,
    metadata: stripKeys(fields.metadata, STRIPPED_METADATA_KEYS),
    options: stripKeys(fields.options, PLACEMENT_OPTION_KEYS),
  };
}

/** A new environment gets the base's services (and its overlay's) at once. */
export function createEnvironment(db: Queryable, actor: Actor, input: EnvironmentFields & { projectId: string }): Environment {
  const parent = loadProject(db, actor, input.projectId, 'write');
  refusePlatformProject(parent);
  const columns = writableColumns(db, parent.organizationId, input);
  const compose = overlayOptionsForWrite(db, parent, columns.options, null);
  return db.transaction((tx) => {
    const row = insertEnvironment(tx, { projectId: parent.id, ...columns, options: compose.options });
    reconcileEnvironmentOf(tx, parent, row, null);
    return row;
  });
}

export function updateEnvironment(db: Queryable, actor: Actor, id: string, changes: EnvironmentFields): Environment {
  const row = loadEnvironment(db, actor, id, 'write');
  const project = findProject(db, row.projectId)!;
  refusePlatformProject(project);
  const columns = writableColumns(db, row.organizationId, changes);
  const compose = overlayOptionsForWrite(db, project, columns.options, row.options);
  const update = { ...columns, options: compose.options };
  if (Object.values(update).every((value) => value === undefined)) return row;
  return db.transaction((tx) => {
    const updated = updateEnvironmentRow(tx, id, update);
    if (compose.composeChanged) reconcileEnvironmentOf(tx, project, updated, compose.previous);
    else if (updated.serverId !== row.serverId) checkMovedEnvironment(tx, project, updated);
    return updated;
  });
}

/** Restrict: services must go first; deployments, variables and markers of the environment cascade. */
export function deleteEnvironment(db: Queryable, actor: Actor, id: string): void {
  const row = loadEnvironment(db, actor, id, 'write');
  refusePlatformProject(findProject(db, row.projectId)!);
  if (environmentHasServices(db, id)) throw hasDependents('environment', 'services');
  deleteRestricted('environment', () => deleteEnvironmentRow(db, id));
}
