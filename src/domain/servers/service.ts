/**
 * Servers are enrolled by their daemon; clients list, read, rename and delete them. A server
 * stays while anything places work on it: an environment pin, a project default, a container
 * or a managed replica. Its variables and markers go with it; deployments keep their history
 * with the server reference cleared.
 */
import type { Server } from '../../db/schema/index.ts';
import { notFound } from '../../lib/errors.ts';
import { type Access, type Actor, authorize } from '../actor.ts';
import { deleteRestricted, firstDependent, hasDependents, type Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import {
  deleteServerRow,
  findServer,
  isServerPinned,
  isServerProjectDefault,
  listServersOf,
  serverHasContainers,
  serverHasReplicas,
  updateServerRow,
} from './queries.ts';

export function loadServer(db: Queryable, actor: Actor, id: string, access: Access = 'read'): Server {
  const row = findServer(db, id);
  if (!row) throw notFound('server');
  authorize(actor, row.organizationId, access, 'server');
  return row;
}

/**
 * A server referenced from a resource of `organizationId`: one of another organization is 404,
 * exactly like a missing one.
 */
export function requireServerOf(db: Queryable, organizationId: string, id: string): Server {
  const row = findServer(db, id);
  if (!row || row.organizationId !== organizationId) throw notFound('server');
  return row;
}

export function listServers(db: Queryable, actor: Actor, organizationId: string, page: PageRequest): Page<Server> {
  authorize(actor, organizationId, 'read', 'organization');
  return listServersOf(db, organizationId, page);
}

export function renameServer(db: Queryable, actor: Actor, id: string, name: string | undefined): Server {
  const row = loadServer(db, actor, id, 'write');
  if (name === undefined || name === row.name) return row;
  return updateServerRow(db, id, { name });
}

/** Answers the deleted row. */
export function deleteServer(db: Queryable, actor: Actor, id: string): Server {
  const row = loadServer(db, actor, id, 'write');
  const dependent = firstDependent([
    ['environments pinned to it', () => isServerPinned(db, id)],
    ['projects using it as their default server', () => isServerProjectDefault(db, row.organizationId, id)],
    ['containers', () => serverHasContainers(db, id)],
    ['managed replicas', () => serverHasReplicas(db, id)],
  ]);
  if (dependent) throw hasDependents('server', dependent);
  deleteRestricted('server', () => deleteServerRow(db, id));
  return row;
}
