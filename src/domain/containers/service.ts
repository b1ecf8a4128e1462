/**
 * Containers pin a container to a service and the server observed to host it. Clients may
 * record one and keep free-form metadata and options on it; the runtime facts (status, runtime
 * container id) belong to the daemon report and are never client-written.
 */
import type { Container, ContainerRole, JsonObject } from '../../db/schema/index.ts';
import { conflict, validationFailed } from '../../lib/errors.ts';
import { type Access, type Actor, loadFor } from '../actor.ts';
import { loadServer, requireServerOf } from '../servers/service.ts';
import { loadService } from '../services/service.ts';
import type { Queryable } from '../shared/database.ts';
import { stripKeys } from '../shared/json.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import {
  type ContainerParents,
  deleteContainerRow,
  findContainer,
  insertContainer,
  isOrdinalTaken,
  listContainersOf,
  type OwnedContainer,
  updateContainerRow,
} from './queries.ts';

/** Column facts that must not be shadowed inside the free-form JSON. */
export const IDENTITY_KEYS = [
  'id',
  'serviceId',
  'serverId',
  'containerId',
  'status',
  'role',
  'ordinal',
  'composeServiceName',
  'containerName',
] as const;

export interface ContainerJson {
  metadata?: JsonObject | null;
  options?: JsonObject | null;
}

export interface NewContainerInput extends ContainerJson {
  serviceId: string;
  serverId: string;
  containerName: string;
  composeServiceName: string;
  role?: ContainerRole;
  ordinal?: number;
}

export function loadContainer(db: Queryable, actor: Actor, id: string, access: Access = 'read'): OwnedContainer {
  return loadFor(actor, access, 'container', findContainer(db, id));
}

export function listContainers(db: Queryable, actor: Actor, parents: ContainerParents, page: PageRequest): Page<Container> {
  if (parents.serviceId) loadService(db, actor, parents.serviceId);
  else if (parents.serverId) loadServer(db, actor, parents.serverId);
  else throw validationFailed('serviceId or serverId is required', 'serviceId');
  return listContainersOf(db, parents, page);
}

const strippedJson = (input: ContainerJson) => ({
  metadata: stripKeys(input.metadata, IDENTITY_KEYS),
  options: stripKeys(input.options, IDENTITY_KEYS),
});

export function createContainer(db: Queryable, actor: Actor, input: NewContainerInput): Container {
  const owner = loadService(db, actor, input.serviceId, 'write');
  requireServerOf(db, owner.organizationId, input.serverId);
  const role = input.role ?? 'service';
  const ordinal = input.ordinal ?? 1;
  if (role === 'ingress' && ordinal !== 1) throw validationFailed('an ingress container always has ordinal 1', 'ordinal');
  if (isOrdinalTaken(db, owner.id, role, ordinal)) {
    throw conflict('ordinal_in_use', `the service already has a ${role} container with ordinal ${ordinal}`, 'ordinal');
  }
  return insertContainer(db, {
    serviceId: owner.id,
    serverId: input.serverId,
    containerName: input.containerName,
    composeServiceName: input.composeServiceName,
    role,
    ordinal,
    ...strippedJson(input),
  });
}

export function updateContainer(db: Queryable, actor: Actor, id: string, changes: ContainerJson): Container {
  const row = loadContainer(db, actor, id, 'write');
  if (changes.metadata === undefined && changes.options === undefined) return row;
  return updateContainerRow(db, id, strippedJson(changes));
}

export function deleteContainer(db: Queryable, actor: Actor, id: string): void {
  loadContainer(db, actor, id, 'write');
  deleteContainerRow(db, id);
}
