/**
 * A daemon's container report, applied to the container rows of one environment exactly as the
 * specification's state table says:
 *
 * | trigger                           | rows                         | status                     | container_id        |
 * |-----------------------------------|------------------------------|----------------------------|---------------------|
 * | report listing the container      | matched row (created if its  | the runtime state (created,| the reported id     |
 * |                                   | service is known but no row) | running, ... dead), else   |                     |
 * |                                   |                              | `unknown` (protocol parse) |                     |
 * | stop report                       | listed rows (`compose stop`  | the runtime state: exited  | the reported id     |
 * |                                   | keeps the containers)        | once stopped               |                     |
 * | stop report                       | rows of this server not listed (an empty report: all) | `exited` (stopped, see DECISIONS) | null |
 * | destroy report                    | rows of this server not listed (an empty report: all) | unchanged  | null                |
 * | deploy report (or on the daemon's own account) | rows of this server not listed that still hold a container id | `exited` | null |
 * | deploy report                     | other rows not listed        | unchanged                  | unchanged           |
 *
 * A report lists every container of the project on its server (`docker ps -a`), so a row of
 * that server whose container it does not list has none any more: after a deploy, a replica the
 * plan dropped while the server kept others of the environment (Compose removed it as an
 * orphan). Pending rows of the deploy that have no container yet stay pending.
 *
 * So `container_id` null means no container exists for the row: `pending` before its first
 * report, removed (destroyed, or gone from the engine) after one; `isRemovedContainer` says which.
 * Reports also arrive while a command runs (the agent's progress): each is applied the same way.
 *
 * A row placed on another server than the report's is never touched by it: a replica the plan
 * moved keeps its row on the new server while the old one still lists its container (until
 * Compose removes the orphan; the agent's interim reports can see it).
 *
 * A reported container is matched to its row by the platform labels the compiler sets
 * (dev.panel.service-id, dev.panel.role, dev.panel.ordinal; src/compose/naming.ts), and only for
 * services of this environment, so a report can never write another environment's rows; failing
 * that, by container name among this environment's rows. A container id is unique per server:
 * a row taking an id clears it from any stale row of the same server.
 */
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { PANEL_LABELS } from '../../compose/naming.ts';
import { toContainerState } from '../../contract/container-state.ts';
import type { ReportedContainer } from '../../contract/daemon-protocol.ts';
import { type Container, container, type ContainerRole, containerRoles, type DeploymentKind, service } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';

export interface ReportTarget {
  serverId: string;
  environmentId: string;
  /** The command the report belongs to; null for a report sent on the daemon's own account. */
  kind: DeploymentKind | null;
}

const ROLES: ReadonlySet<string> = new Set(containerRoles);
const keyOf = (serviceId: string, role: string, ordinal: number) => `${serviceId}|${role}|${ordinal}`;

/** Service id, role and ordinal from the platform labels, when they are all well-formed. */
function labelledSlot(reported: ReportedContainer): { serviceId: string; role: ContainerRole; ordinal: number } | null {
  const labels = reported.labels ?? {};
  const serviceId = labels[PANEL_LABELS.serviceId];
  const role = labels[PANEL_LABELS.role] ?? 'service';
  const ordinal = Number(labels[PANEL_LABELS.ordinal] ?? '1');
  if (!serviceId || !ROLES.has(role) || !Number.isSafeInteger(ordinal) || ordinal < 1 || (role === 'ingress' && ordinal !== 1)) return null;
  return { serviceId, role: role as ContainerRole, ordinal };
}

/** Applies one report; answers every row it changed (for the change feed). */
export function applyReport(db: Queryable, target: ReportTarget, reported: readonly ReportedContainer[]): Container[] {
  return db.transaction((tx) => {
    const serviceIds = new Set(
      tx.select({ id: service.id }).from(service).where(eq(service.environmentId, target.environmentId)).all().map((row) => row.id),
    );
    if (serviceIds.size === 0) return [];
    const rows = tx.select().from(container).where(inArray(container.serviceId, [...serviceIds])).all();
    const bySlot = new Map(rows.map((row) => [keyOf(row.serviceId, row.role, row.ordinal), row]));
    const byName = new Map(rows.map((row) => [row.containerName, row]));
    const changed = new Map<string, Container>();
    const listed = new Set<string>();

    for (const item of reported) {
      const slot = labelledSlot(item);
      const known = slot && serviceIds.has(slot.serviceId) ? slot : null;
      const row = (known && bySlot.get(keyOf(known.serviceId, known.role, known.ordinal))) || byName.get(item.name);
      const status = toContainerState(item.state);
      const observed = {
        serverId: target.serverId,
        containerId: item.containerId,
        containerName: item.name,
        status,
        ...(item.service ? { composeServiceName: item.service } : {}),
      } as const;
      let written: Container | undefined;
      if (row) {
        if (listed.has(row.id)) continue; // two containers claim one row: the first listed keeps it
        // The row was placed on another server (a replica the plan moved): this server's container
        // of that slot is the one being left behind, never the row's.
        if (row.serverId !== target.serverId) continue;
        releaseContainerId(tx, target.serverId, item.containerId, row.id);
        written = tx.update(container).set(observed).where(eq(container.id, row.id)).returning().get();
      } else if (known) {
        releaseContainerId(tx, target.serverId, item.containerId, null);
        written = tx
          .insert(container)
          .values({ ...known, composeServiceName: item.service || item.name, ...observed })
          .returning()
          .get();
      }
      if (!written) continue;
      listed.add(written.id);
      changed.set(written.id, written);
    }

    for (const row of rows) {
      if (listed.has(row.id) || row.serverId !== target.serverId) continue;
      let next: { containerId: null; status?: 'exited' } | null;
      if (target.kind === 'stop') next = row.containerId === null && row.status === 'exited' ? null : { containerId: null, status: 'exited' };
      else if (target.kind === 'destroy') next = row.containerId === null ? null : { containerId: null };
      else next = row.containerId === null ? null : { containerId: null, status: 'exited' };
      if (next !== null) changed.set(row.id, tx.update(container).set(next).where(eq(container.id, row.id)).returning().get()!);
    }
    return [...changed.values()];
  });
}

/** The row's container no longer exists on its server: it was listed once, then was not. */
export const isRemovedContainer = (row: Pick<Container, 'containerId' | 'status'>): boolean => row.containerId === null && row.status !== 'pending';

/** Clears `containerId` from any other row of the server: the id is unique per server. */
function releaseContainerId(db: Queryable, serverId: string, containerId: string, keepRowId: string | null): void {
  db.update(container)
    .set({ containerId: null })
    .where(
      and(
        eq(container.serverId, serverId),
        eq(container.containerId, containerId),
        keepRowId ? ne(container.id, keepRowId) : sql`1 = 1`,
      ),
    )
    .run();
}
