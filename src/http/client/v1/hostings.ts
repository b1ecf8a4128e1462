import type { AppDeps } from '../../../deps.ts';
import { Hosting, HostingCreate, HostingListQuery, HostingUpdate } from '../../../contract/hostings.ts';
import { createHosting, deleteHosting, listHostings, loadHosting, updateHosting } from '../../../domain/hostings/service.ts';
import type { Hosting as HostingRow } from '../../../db/schema/index.ts';
import { serversRunning } from '../../../domain/ingress/queries.ts';
import { liveStatesOf } from '../../../domain/ingress/state.ts';
import type { Queryable } from '../../../domain/shared/database.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';
import { presentLive } from './hosting-state.ts';
import { writeWithIngress } from './ingress-refresh.ts';

/**
 * Every write refreshes the ingress of the servers running the hosting's service (before and
 * after) in its transaction; every answer carries what those servers' ingress does with it.
 */
export const hostingRoutes = (deps: AppDeps) => {
  const withLive = (rows: HostingRow[]) => {
    const states = liveStatesOf(deps.db, rows);
    return rows.map((row) => ({ ...row, live: presentLive(row, states.get(row.id)) }));
  };
  const one = (row: HostingRow) => withLive([row])[0]!;
  const withIngress = (serviceIds: () => string[], write: (tx: Queryable) => HostingRow) =>
    writeWithIngress(deps, (tx) => {
      const before = serversRunning(tx, serviceIds());
      const row = write(tx);
      return { result: row, servers: [...before, ...serversRunning(tx, [...serviceIds(), row.serviceId])] };
    });
  return resourceRoutes({
    collection: 'hostings',
    schema: Hosting,
    guard: clientGuard(deps),
    create: {
      body: HostingCreate,
      run: (actor, body) => one(withIngress(() => [body.serviceId], (tx) => createHosting(tx, actor, body))),
      errors: ['hostname_in_use', 'host_port_conflict'],
      summary: 'Create a routing entry for a service',
    },
    list: {
      query: HostingListQuery,
      run: (actor, query) => {
        const page = listHostings(deps.db, actor, query.serviceId, query);
        return { data: withLive(page.data), nextCursor: page.nextCursor };
      },
      summary: 'List the hostings of a service',
    },
    read: { run: (actor, id) => one(loadHosting(deps.db, actor, id)), summary: 'Read a hosting, with what the servers serving it do with it' },
    update: {
      body: HostingUpdate,
      run: (actor, id, body) => one(withIngress(() => [loadHosting(deps.db, actor, id).serviceId], (tx) => updateHosting(tx, actor, id, body))),
      errors: ['hostname_in_use', 'host_port_conflict'],
      summary: 'Change a hosting (options replace the stored ones whole)',
    },
    remove: {
      run: (actor, id) =>
        writeWithIngress(deps, (tx) => {
          const servers = serversRunning(tx, [loadHosting(tx, actor, id).serviceId]);
          deleteHosting(tx, actor, id);
          return { result: undefined, servers };
        }),
      summary: 'Delete a hosting with its hostnames and variables; the servers serving it drop its route',
    },
  });
};
