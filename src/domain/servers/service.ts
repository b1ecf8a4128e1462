/**
 * Servers are enrolled by their daemon; clients list, read, rename, relabel and delete them, and
 * set where the overlay fabric reaches them (endpoint, datacenter). A server stays while anything
 * places work on it: an environment pin, a project default, a container that exists there
 * (running or stopped) or waits for a deploy, or a managed replica. Its variables, markers,
 * fabric allocations and the rows of containers destroyed on it go with it; deployments keep
 * their history with the server reference cleared. A change the fabric depends on (endpoint,
 * datacenter, deletion) reconciles it: the queued commands are answered for the hub.
 */
import { deepEqual } from '../../compose/values.ts';
import type { DaemonCommand, Server } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { type Access, type Actor, authorize, loadFor, inOrganization } from '../actor.ts';
import { reconcileFabric } from '../fabric/reconcile.ts';
import { checkPrivateAddressChange } from '../ingress/host-ports.ts';
import { deleteRestricted, firstDependent, hasDependents, type Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import {
  deleteRemovedContainerRows,
  deleteServerRow,
  findServer,
  isServerPinned,
  isServerProjectDefault,
  listServersOf,
  serverHasLiveContainers,
  serverHasReplicas,
  updateServerRow,
} from './queries.ts';
import { dispatchQueued, type Notifier } from '../notify.ts';

export function loadServer(db: Queryable, actor: Actor, id: string, access: Access = 'read'): Server {
  return loadFor(actor, access, 'server', findServer(db, id));
}

/**
 * A server referenced from a resource of `organizationId`: one of another organization is 404,
 * exactly like a missing one.
 */
export function requireServerOf(db: Queryable, organizationId: string, id: string): Server {
  return inOrganization(findServer(db, id), organizationId, 'server');
}

export function listServers(db: Queryable, actor: Actor, organizationId: string, page: PageRequest): Page<Server> {
  authorize(actor, organizationId, 'read', 'organization');
  return listServersOf(db, organizationId, page);
}

export interface ServerChanges {
  name?: string;
  /** Replaces the whole label set (the planner's `node.labels.<key>`). */
  labels?: Record<string, string>;
  /** Where the fabric reaches the server; null: what its daemon reports. */
  fabricEndpoint?: string | null;
  datacenter?: string | null;
  /** Where tcp/udp hostings with bind `datacenter` publish. */
  privateAddress?: string | null;
}

export interface ServerContext {
  db: Queryable;
  clock: Clock;
  notify: Notifier;
}

/**
 * Rename, relabel, set the fabric endpoint, datacenter or private address: organization admins. Answers the row
 * (unchanged when nothing differs). After the commit subscribers hear of it, and the servers
 * whose fabric configuration changed get their commands.
 */
export function updateServer(ctx: ServerContext, actor: Actor, id: string, changes: ServerChanges): Server {
  const { server, commands } = ctx.db.transaction((db) => {
    const row = loadServer(db, actor, id, 'write');
    const set: ServerChanges = {};
    if (changes.name !== undefined && changes.name !== row.name) set.name = changes.name;
    if (changes.labels !== undefined && !deepEqual(changes.labels, row.labels)) set.labels = sortedLabels(changes.labels);
    if (changes.fabricEndpoint !== undefined && changes.fabricEndpoint !== row.fabricEndpoint) set.fabricEndpoint = changes.fabricEndpoint;
    if (changes.datacenter !== undefined && changes.datacenter !== row.datacenter) set.datacenter = changes.datacenter;
    if (changes.privateAddress !== undefined && changes.privateAddress !== row.privateAddress) set.privateAddress = changes.privateAddress;
    if (Object.keys(set).length === 0) return { server: row, commands: [] as DaemonCommand[] };
    if (set.privateAddress !== undefined) checkPrivateAddressChange(db, row, set.privateAddress);
    const server = updateServerRow(db, id, set);
    const reachChanged = set.fabricEndpoint !== undefined || set.datacenter !== undefined;
    return { server, commands: reachChanged ? reconcileFabric(db, row.organizationId, { now: ctx.clock.now() }) : [] };
  });
  ctx.notify.server(server);
  dispatchQueued(ctx.notify, commands);
  return server;
}

/** Stored in key order, so the console and the API list them alike. */
const sortedLabels = (labels: Record<string, string>) => Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Refused while work is pinned to or running on it. Answers the deleted row; after the commit
 * subscribers hear of the deletion and the fabric's other members lose it from their peers.
 */
export function deleteServer(ctx: ServerContext, actor: Actor, id: string): Server {
  const { server, commands } = ctx.db.transaction((db) => {
    const row = loadServer(db, actor, id, 'write');
    const dependent = firstDependent([
      ['environments pinned to it', () => isServerPinned(db, id)],
      ['projects using it as their default server', () => isServerProjectDefault(db, row.organizationId, id)],
      ['containers (stopped ones too: destroy the deployments that placed them)', () => serverHasLiveContainers(db, id)],
      ['managed replicas', () => serverHasReplicas(db, id)],
    ]);
    if (dependent) throw hasDependents('server', dependent);
    deleteRemovedContainerRows(db, id);
    deleteRestricted('server', () => deleteServerRow(db, id));
    return { server: row, commands: reconcileFabric(db, row.organizationId, { now: ctx.clock.now() }) };
  });
  ctx.notify.serverDeleted(server);
  dispatchQueued(ctx.notify, commands);
  return server;
}
