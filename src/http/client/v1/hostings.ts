import type { AppDeps } from '../../../deps.ts';
import { Hosting, HostingCreate, HostingListQuery, HostingUpdate } from '../../../contract/hostings.ts';
import { listHostings, loadHosting } from '../../../domain/hostings/service.ts';
import type { Hosting as HostingRow } from '../../../db/schema/index.ts';
import { addHosting, changeHosting, removeHosting } from '../../../domain/ingress/writes.ts';
import { liveStatesOf } from '../../../domain/ingress/state.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';
import { presentLive } from './hosting-state.ts';

/**
 * Every write refreshes the ingress of the servers running the hosting's service (before and
 * after) in its transaction (src/domain/ingress/writes.ts); every answer carries what those
 * servers' ingress does with it.
 */
export const hostingRoutes = (deps: AppDeps) => {
  const withLive = (rows: HostingRow[]) => {
    const states = liveStatesOf(deps.db, rows);
    return rows.map((row) => ({ ...row, live: presentLive(row, states.get(row.id)) }));
  };
  const one = (row: HostingRow) => withLive([row])[0]!;
  const ingressWrite = { ...deps, notify: deps.hub.notifier };
  return resourceRoutes({
    collection: 'hostings',
    schema: Hosting,
    guard: clientGuard(deps),
    create: {
      body: HostingCreate,
      run: (actor, body) => one(addHosting(ingressWrite, actor, body)),
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
      run: (actor, id, body) => one(changeHosting(ingressWrite, actor, id, body)),
      errors: ['hostname_in_use', 'host_port_conflict'],
      summary: 'Change a hosting (options replace the stored ones whole)',
    },
    remove: {
      run: (actor, id) => removeHosting(ingressWrite, actor, id),
      summary: 'Delete a hosting with its hostnames and variables; the servers serving it drop its route',
    },
  });
};
