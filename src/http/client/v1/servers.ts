import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { Server, ServerListQuery, ServerUpdate, ThisMachine, ThisMachineQuery } from '../../../contract/servers.ts';
import { deleteServer, listServers, loadServer, updateServer } from '../../../domain/servers/service.ts';
import { describeThisMachine } from '../../../domain/servers/this-machine.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { presenterOf } from '../../present.ts';
import { resourceRoutes } from '../../resource.ts';
import { errorResponses } from '../../schemas.ts';

/** The server as GET /servers/:id answers it (also pushed on /ws/client/v1). */
export const presentServer = presenterOf(Server);

/** "This machine": Panel's own host as the organization's local server, or why it is not connected. */
const thisMachineRoute = (deps: AppDeps) =>
  new Elysia({ prefix: '/servers', detail: { tags: ['servers'] } })
    .use(clientGuard(deps))
    .get(
      '/this-machine',
      ({ actor, query }) =>
        describeThisMachine(actor, query.organizationId, {
          ...deps.hub.localSlot(),
          isConnected: (serverId) => deps.hub.isConnected(serverId),
          supervised: deps.localDaemon?.status(),
        }),
      {
        query: ThisMachineQuery,
        response: { 200: ThisMachine, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        role: 'member',
        detail: { summary: "Whether Panel's own host is connected as the organization's local server; if not, why and the command that fixes it" },
      },
    );

/** Servers are enrolled by their daemon (join tokens), not created here. */
export const serverRoutes = (deps: AppDeps) => {
  const ctx = { db: deps.db, clock: deps.clock, notify: deps.hub.notifier };
  return new Elysia({ name: 'servers' }).use(thisMachineRoute(deps)).use(
    resourceRoutes({
    collection: 'servers',
    schema: Server,
    guard: clientGuard(deps),
    list: { query: ServerListQuery, run: (actor, query) => listServers(deps.db, actor, query.organizationId, query), summary: 'List the servers of an organization' },
    read: { run: (actor, id) => loadServer(deps.db, actor, id), summary: 'Read a server' },
    update: {
      body: ServerUpdate,
      run: (actor, id, body) => updateServer(ctx, actor, id, body),
      errors: ['has_dependents', 'host_port_conflict'],
      summary: 'Rename a server, replace its labels, set where the overlay fabric reaches it or its private address',
      description:
        'A new `fabricEndpoint` or `datacenter` reconciles the fabric: the members whose peer configuration changes get it as a command. ' +
        'A new `privateAddress` is checked against what tcp/udp hostings that bind `datacenter` there would publish at it (422 `host_port_conflict` naming both); ' +
        'they move to it at their environment\'s next deploy. Clearing it while such hostings exist is 409 `has_dependents`.',
    },
    remove: {
      run: (actor, id) => deleteServer(ctx, actor, id),
      errors: ['has_dependents'],
      summary: 'Delete a server, with the rows of containers destroyed on it (409 has_dependents while work is pinned to it or containers, even stopped, exist on it); it leaves every fabric peer list',
    },
    }),
  );
};
