/**
 * Services: the deployable units of an environment. Rows come from the Compose document,
 * managed allocation or daemon reports, never from a client POST, and clients never write the
 * compose service name. Clients edit the display name, description, metadata and the validated
 * per-service options; deploy hooks only where the organization enables them.
 */
import type { JsonObject, Service } from '../../db/schema/index.ts';
import { validationFailed } from '../../lib/errors.ts';
import { type Access, type Actor, loadFor } from '../actor.ts';
import { loadEnvironment } from '../environments/service.ts';
import { cacheableList } from '../shared/cacheable-list.ts';
import { deleteRestricted, firstDependent, hasDependents, type Queryable } from '../shared/database.ts';
import { stripKeys } from '../shared/json.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import {
  deleteServiceRow,
  findService,
  isDeployHooksEnabled,
  listServicesOf,
  type OwnedService,
  serviceHasBindings,
  serviceHasContainers,
  serviceHasHostings,
  serviceHasTenancies,
  updateServiceRow,
} from './queries.ts';

/** Identity facts that live in columns (or are derived) and so never in client metadata. */
export const PROMOTED_METADATA_KEYS = ['id', 'environmentId', 'composeServiceName', 'serviceId', 'organizationId', 'projectId'] as const;

export interface ServiceFields {
  name?: string | null;
  description?: string | null;
  metadata?: JsonObject | null;
  options?: JsonObject | null;
}

export function loadService(db: Queryable, actor: Actor, id: string, access: Access = 'read'): OwnedService {
  return loadFor(actor, access, 'service', findService(db, id));
}

/** The services of an environment, a page at a time: the same for every caller who may read the environment. */
export const serviceList = (db: Queryable) =>
  cacheableList<{ environmentId: string } & PageRequest, Service>(db, ['service'], {
    authorize: (actor, query) => void loadEnvironment(db, actor, query.environmentId),
    page: (query) => listServicesOf(db, query.environmentId, query),
  });

export function updateService(db: Queryable, actor: Actor, id: string, changes: ServiceFields): Service {
  const row = loadService(db, actor, id, 'write');
  if (changes.options?.hooks !== undefined && !isDeployHooksEnabled(db, row.organizationId)) {
    throw validationFailed('deploy hooks are not enabled for this organization', 'options.hooks');
  }
  const columns = { ...changes, metadata: stripKeys(changes.metadata, PROMOTED_METADATA_KEYS) };
  if (Object.values(columns).every((value) => value === undefined)) return row;
  return updateServiceRow(db, id, columns);
}

/** Restrict: run-as edges, bindings, hostings and containers hold a service; its variables and markers cascade. */
export function deleteService(db: Queryable, actor: Actor, id: string): void {
  loadService(db, actor, id, 'write');
  const dependent = firstDependent([
    ['bindings', () => serviceHasBindings(db, id)],
    ['tenancies', () => serviceHasTenancies(db, id)],
    ['hostings', () => serviceHasHostings(db, id)],
    ['containers', () => serviceHasContainers(db, id)],
  ]);
  if (dependent) throw hasDependents('service', dependent);
  deleteRestricted('service', () => deleteServiceRow(db, id));
}
