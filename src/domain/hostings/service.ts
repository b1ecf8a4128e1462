/**
 * Hostings: routing entries of a service. Each write re-validates the references (a public ip
 * needs `bind: public`; ip and certificate must belong to the same organization) and rewrites
 * the hostname mirror in the same transaction, so a hostname routes to at most one hosting per
 * organization whatever the path prefix, and a tcp/udp hosting's ports are checked against what
 * else claims them on its servers (422 host_port_conflict). Reconcile provenance in metadata is
 * kept from clients.
 */
import type { Hosting, HostingProtocol, JsonObject } from '../../db/schema/index.ts';
import { validationFailed } from '../../lib/errors.ts';
import { type Access, type Actor, loadFor, inOrganization } from '../actor.ts';
import { loadService } from '../services/service.ts';
import type { Queryable } from '../shared/database.ts';
import { stripKeys } from '../shared/json.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import { checkHostingPorts } from '../ingress/host-ports.ts';
import { checkHostnames } from './mirror.ts';
import {
  deleteHostingRow,
  findHosting,
  findIp,
  findTls,
  insertHosting,
  listHostingsOf,
  type OwnedHosting,
  replaceHostnames,
  updateHostingRow,
} from './queries.ts';

/** Set by Compose reconcile only: clients can neither write nor erase them. */
export const PROVENANCE_METADATA_KEYS = ['composeOwned', 'composeServiceName', 'composeRoute', 'composeTlsMode', 'composeAdopted'] as const;

export interface HostingOptions extends JsonObject {
  hostnames?: string[];
  protocol?: HostingProtocol;
  bind?: 'public' | 'datacenter' | 'local';
}

export interface HostingFields {
  name?: string | null;
  description?: string | null;
  metadata?: JsonObject | null;
  options?: HostingOptions | null;
  tlsId?: string | null;
  ipId?: string | null;
}

export function loadHosting(db: Queryable, actor: Actor, id: string, access: Access = 'read'): OwnedHosting {
  return loadFor(actor, access, 'hosting', findHosting(db, id));
}

export function listHostings(db: Queryable, actor: Actor, serviceId: string, page: PageRequest): Page<Hosting> {
  loadService(db, actor, serviceId);
  return listHostingsOf(db, serviceId, page);
}

/** Newly referenced ip and certificate must be the organization's own (404 otherwise). */
function checkReferences(db: Queryable, organizationId: string, fields: HostingFields): void {
  if (fields.ipId) {
    const address = inOrganization(findIp(db, fields.ipId), organizationId, 'ip');
    if (address.scope !== 'public') throw validationFailed('must be an ip of public scope', 'ipId');
  }
  if (fields.tlsId) {
    inOrganization(findTls(db, fields.tlsId), organizationId, 'tls');
  }
}

/** The routing facts as they will stand once a write is applied. */
interface RoutingAfterWrite {
  ipId: string | null;
  options: HostingOptions | null;
}

/** Validates a write against the hosting as it will stand; returns the hostnames to mirror. */
function checkHosting(db: Queryable, organizationId: string, fields: HostingFields, after: RoutingAfterWrite & { serviceId: string; name?: string | null }, hostingId?: string): string[] {
  checkReferences(db, organizationId, fields);
  if (after.ipId !== null && after.options?.bind !== 'public') {
    throw validationFailed('a hosting with an ipId needs bind: public', 'options.bind');
  }
  checkHostingPorts(db, { id: hostingId, serviceId: after.serviceId, name: after.name, ipId: after.ipId, options: after.options, protocol: after.options?.protocol ?? null });
  return checkHostnames(db, organizationId, after.options?.hostnames ?? [], hostingId);
}

/** Client metadata minus provenance keys, plus the provenance already stored. */
function mergeMetadata(client: JsonObject | null | undefined, stored: JsonObject | null): JsonObject | null | undefined {
  if (client === undefined) return undefined;
  const isProvenance = (key: string) => (PROVENANCE_METADATA_KEYS as readonly string[]).includes(key);
  const provenance = Object.fromEntries(Object.entries(stored ?? {}).filter(([key]) => isProvenance(key)));
  const merged = { ...stripKeys(client, PROVENANCE_METADATA_KEYS), ...provenance };
  return client === null && Object.keys(merged).length === 0 ? null : merged;
}

export function createHosting(db: Queryable, actor: Actor, input: HostingFields & { serviceId: string }): Hosting {
  const owner = loadService(db, actor, input.serviceId, 'write');
  const options = input.options ?? null;
  const hostnames = checkHosting(db, owner.organizationId, input, { ipId: input.ipId ?? null, options, serviceId: owner.id, name: input.name });
  return db.transaction((tx) => {
    const row = insertHosting(tx, {
      serviceId: owner.id,
      name: input.name,
      description: input.description,
      metadata: mergeMetadata(input.metadata, null),
      options,
      tlsId: input.tlsId,
      ipId: input.ipId,
      protocol: options?.protocol ?? null,
    });
    replaceHostnames(tx, row.id, owner.organizationId, hostnames);
    return row;
  });
}

export function updateHosting(db: Queryable, actor: Actor, id: string, changes: HostingFields): Hosting {
  const row = loadHosting(db, actor, id, 'write');
  const ipId = changes.ipId !== undefined ? changes.ipId : row.ipId;
  const options = changes.options !== undefined ? changes.options : (row.options as HostingOptions | null);
  const name = changes.name !== undefined ? changes.name : row.name;
  const hostnames = checkHosting(db, row.organizationId, changes, { ipId, options, serviceId: row.serviceId, name }, row.id);
  return db.transaction((tx) => {
    const updated = updateHostingRow(tx, id, {
      ...changes,
      metadata: mergeMetadata(changes.metadata, row.metadata),
      protocol: changes.options !== undefined ? (options?.protocol ?? null) : undefined,
      updatedAt: new Date(),
    });
    replaceHostnames(tx, id, row.organizationId, hostnames);
    return updated;
  });
}

/** Its hostname mirror rows and variables cascade. */
export function deleteHosting(db: Queryable, actor: Actor, id: string): void {
  loadHosting(db, actor, id, 'write');
  deleteHostingRow(db, id);
}
