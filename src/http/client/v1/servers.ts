import type { AppDeps } from '../../../app.ts';
import { Server, ServerListQuery, ServerUpdate } from '../../../contract/servers.ts';
import { deleteServer, listServers, loadServer, updateServer } from '../../../domain/servers/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { presenterOf } from '../../present.ts';
import { resourceRoutes } from '../../resource.ts';

/** The server as GET /servers/:id answers it (also pushed on /ws/client/v1). */
export const presentServer = presenterOf(Server);

/** Servers are enrolled by their daemon (join tokens), not created here. */
export const serverRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'servers',
    schema: Server,
    guard: clientGuard(deps),
    list: { query: ServerListQuery, run: (actor, query) => listServers(deps.db, actor, query.organizationId, query), summary: 'List the servers of an organization' },
    read: { run: (actor, id) => loadServer(deps.db, actor, id), summary: 'Read a server' },
    update: {
      body: ServerUpdate,
      run: (actor, id, body) => {
        const row = updateServer(deps.db, actor, id, body);
        deps.hub.feed.server(row);
        return row;
      },
      summary: 'Rename a server or replace its labels',
    },
    remove: {
      run: (actor, id) => deps.hub.feed.serverDeleted(deleteServer(deps.db, actor, id)),
      errors: ['has_dependents'],
      summary: 'Delete a server (409 has_dependents while work is pinned to or running on it)',
    },
  });
