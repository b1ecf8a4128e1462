/**
 * Reconcile: after a Compose save, the rows derived from the documents follow them, in the
 * save's transaction (a refusal anywhere leaves nothing changed). Per environment, the project
 * base merged with the environment overlay decides:
 *
 * - service rows: one per Compose service key (compose_service_name); a new key gets a row named
 *   after it. A key that disappears while exactly one new key appears with the very same
 *   definition is a rename: the row (its id, variables, tenancies, hostings) is kept under the
 *   new key, and its name follows when it still was the old key. Any other vanished key's row is
 *   removed, refused with 409 has_dependents while bindings, tenancies, containers or hand-made
 *   hostings hold it (its compose-owned hostings go with it; variables and markers cascade).
 * - hostings: see hostings.ts.
 * - the project's repository: the first `x-panel.source.sourceId` of the saved document is
 *   adopted when the project has none (repository.ts).
 *
 * Errors found while reconciling one environment name it in the message.
 */
import { composeInvalid } from '../../compose/limits.ts';
import { mergeCompose } from '../../compose/merge.ts';
import { type StoredPolicy, validateCompose } from '../../compose/validate.ts';
import { deepEqual, isMapping, type JsonObject } from '../../compose/values.ts';
import type { Service } from '../../db/schema/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { deleteHostingRow } from '../hostings/queries.ts';
import { serviceHasBindings, serviceHasContainers, serviceHasTenancies, updateServiceRow, deleteServiceRow } from '../services/queries.ts';
import { deleteRestricted, firstDependent, hasDependents, type Queryable } from '../shared/database.ts';
import { reconcileHostings } from './hostings.ts';
import { hostingsOfServices, insertService, servicesOfEnvironment } from './queries.ts';

/** Compose's own rule for service names (compose-spec schema), within the column's 255 characters. */
const SERVICE_KEY = /^[a-zA-Z0-9._-]{1,255}$/;

export interface EnvironmentLayers {
  environment: { id: string; name: string | null };
  organizationId: string;
  policy: StoredPolicy;
  /** The layers as they will be stored. */
  base: JsonObject;
  overlay: JsonObject;
  /** The layers as stored before this save. */
  previousBase: JsonObject;
  previousOverlay: JsonObject;
}

/** Runs `work`, naming the environment in any refusal it raises. */
function inEnvironment<T>(environment: EnvironmentLayers['environment'], work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const label = environment.name === null ? environment.id : `"${environment.name}"`;
    throw error.relocated(error.path, `environment ${label}: `);
  }
}

type ServiceMap = Record<string, JsonObject>;

const servicesOf = (model: JsonObject): ServiceMap => (isMapping(model.services) ? (model.services as ServiceMap) : {});

const hostingEntriesOf = (service: JsonObject | undefined): JsonObject[] => {
  const xPanel = service?.['x-panel'];
  const entries = isMapping(xPanel) ? xPanel.hosting : undefined;
  return Array.isArray(entries) ? entries.filter(isMapping) : [];
};

/** The previous merged services, or none when the stored layers no longer merge. */
function previousServices(layers: EnvironmentLayers): ServiceMap {
  try {
    return servicesOf(mergeCompose(layers.previousBase, layers.previousOverlay));
  } catch {
    return {};
  }
}

export function reconcileEnvironment(tx: Queryable, layers: EnvironmentLayers): void {
  inEnvironment(layers.environment, () => {
    const merged = mergeCompose(layers.base, layers.overlay);
    validateCompose(merged, { policy: layers.policy });
    const services = servicesOf(merged);
    const keys = Object.keys(services);
    for (const key of keys) {
      if (!SERVICE_KEY.test(key)) throw composeInvalid(`services.${key}: a service name is 1 to 255 letters, digits, '.', '_' or '-'`, `services.${key}`);
    }
    const before = previousServices(layers);
    const rows = reconcileServices(tx, layers.environment.id, services, before);
    reconcileHostings(
      tx,
      layers.organizationId,
      rows.map(({ row, previousKey }) => ({
        serviceId: row.id,
        composeServiceName: row.composeServiceName,
        entries: hostingEntriesOf(services[row.composeServiceName]),
        previousEntries: hostingEntriesOf(before[previousKey]),
      })),
    );
  });
}

/** Service rows after reconcile, each with the key it had before this save. */
function reconcileServices(tx: Queryable, environmentId: string, services: ServiceMap, before: ServiceMap) {
  const existing = servicesOfEnvironment(tx, environmentId);
  const byKey = new Map(existing.map((row) => [row.composeServiceName, row]));
  const added = Object.keys(services).filter((key) => !byKey.has(key));
  const removed = existing.filter((row) => !Object.hasOwn(services, row.composeServiceName));

  const result: { row: Service; previousKey: string }[] = [];
  const renamed = renameOf(removed, added, services, before);
  if (renamed !== undefined) {
    const { row, key } = renamed;
    const name = row.name === row.composeServiceName ? key : row.name;
    byKey.set(key, updateServiceRow(tx, row.id, { composeServiceName: key, name }));
    removed.splice(removed.indexOf(row), 1);
    added.splice(added.indexOf(key), 1);
    result.push({ row: byKey.get(key)!, previousKey: row.composeServiceName });
  }
  for (const row of removed) removeService(tx, row);
  for (const key of added) byKey.set(key, insertService(tx, { environmentId, composeServiceName: key, name: key }));
  for (const key of Object.keys(services)) {
    if (renamed?.key !== key) result.push({ row: byKey.get(key)!, previousKey: key });
  }
  return result;
}

/** One vanished row and one new key with the same definition as before: a rename. */
function renameOf(removed: Service[], added: string[], services: ServiceMap, before: ServiceMap) {
  if (removed.length !== 1 || added.length !== 1) return undefined;
  const row = removed[0]!;
  const key = added[0]!;
  const previous = before[row.composeServiceName];
  return previous !== undefined && deepEqual(previous, services[key]) ? { row, key } : undefined;
}

function removeService(tx: Queryable, row: Service): void {
  const hostings = hostingsOfServices(tx, [row.id]);
  const dependent = firstDependent([
    ['bindings', () => serviceHasBindings(tx, row.id)],
    ['tenancies', () => serviceHasTenancies(tx, row.id)],
    ['containers', () => serviceHasContainers(tx, row.id)],
    ['hand-made hostings', () => hostings.some((hosting) => hosting.metadata?.composeOwned !== true)],
  ]);
  const what = `service ${row.composeServiceName}, which the document no longer has,`;
  if (dependent) throw hasDependents(what, dependent);
  for (const hosting of hostings) deleteHostingRow(tx, hosting.id);
  deleteRestricted(what, () => deleteServiceRow(tx, row.id));
}
