/**
 * Markers apply an organization's tags to its taggable entities. A client replaces an entity's
 * whole tag set at once; tags of any other organization are 404, repeats collapse.
 */
import type { Marker, Tag } from '../../db/schema/index.ts';
import { notFound } from '../../lib/errors.ts';
import { type Access, type Actor, authorize } from '../actor.ts';
import { loadEnvironment } from '../environments/service.ts';
import { loadProject } from '../projects/service.ts';
import { loadServer } from '../servers/service.ts';
import { loadService } from '../services/service.ts';
import type { Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import { findTags } from '../tags/queries.ts';
import { loadTag } from '../tags/service.ts';
import { loadWorkspace } from '../workspaces/service.ts';
import {
  datacenterOrganization,
  listMarkersOfTag,
  listTagsOfEntity,
  type MarkerEntityColumn,
  replaceMarkers,
  storageOrganization,
} from './queries.ts';
import type { TaggableCollection } from '../../contract/tags.ts';

/** Taggable entities by their collection name in the API, with their marker column. */
export const TAGGABLE_COLUMNS = {
  servers: 'serverId',
  workspaces: 'workspaceId',
  projects: 'projectId',
  environments: 'environmentId',
  services: 'serviceId',
  datacenters: 'datacenterId',
  storages: 'storageId',
} as const satisfies Record<TaggableCollection, MarkerEntityColumn>;

function authorizeOwned(actor: Actor, organizationId: string | undefined, what: string, access: Access): void {
  if (organizationId === undefined) throw notFound(what);
  authorize(actor, organizationId, access, what);
}

/** Checks the actor's access to the entity and answers its organization. */
function organizationOfEntity(db: Queryable, actor: Actor, collection: TaggableCollection, id: string, access: Access): string {
  switch (collection) {
    case 'servers':
      return loadServer(db, actor, id, access).organizationId;
    case 'workspaces':
      return loadWorkspace(db, actor, id, access).organizationId;
    case 'projects':
      return loadProject(db, actor, id, access).organizationId;
    case 'environments':
      return loadEnvironment(db, actor, id, access).organizationId;
    case 'services':
      return loadService(db, actor, id, access).organizationId;
    case 'datacenters': {
      const organizationId = datacenterOrganization(db, id);
      authorizeOwned(actor, organizationId, 'datacenter', access);
      return organizationId!;
    }
    case 'storages': {
      const organizationId = storageOrganization(db, id);
      authorizeOwned(actor, organizationId, 'storage', access);
      return organizationId!;
    }
  }
}

export function listEntityTags(db: Queryable, actor: Actor, collection: TaggableCollection, id: string, page: PageRequest): Page<Tag> {
  organizationOfEntity(db, actor, collection, id, 'read');
  return listTagsOfEntity(db, TAGGABLE_COLUMNS[collection], id, page);
}

/** Replaces the entity's tag set in one transaction and answers the new set. */
export function replaceEntityTags(db: Queryable, actor: Actor, collection: TaggableCollection, id: string, tagIds: string[]): Tag[] {
  const organizationId = organizationOfEntity(db, actor, collection, id, 'write');
  const wanted = [...new Set(tagIds)];
  const tags = findTags(db, wanted);
  if (tags.length !== wanted.length || tags.some((row) => row.organizationId !== organizationId)) throw notFound('tag');
  const column = TAGGABLE_COLUMNS[collection];
  db.transaction((tx) => replaceMarkers(tx, column, id, wanted));
  return tags.sort((a, b) => (a.id < b.id ? -1 : 1));
}

export function listMarkers(db: Queryable, actor: Actor, tagId: string, page: PageRequest): Page<Marker> {
  loadTag(db, actor, tagId);
  return listMarkersOfTag(db, tagId, page);
}
