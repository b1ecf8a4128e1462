/**
 * Where a deploy of an environment is anchored, and the servers as the placement planner sees
 * them: shared by the deploy plan and the host-port checks at Compose save (ingress/compose-ports.ts).
 */
import type { PlannerServer } from '../../compose/planner/plan.ts';
import type { Project, Server } from '../../db/schema/index.ts';
import { conflict } from '../../lib/errors.ts';
import type { OwnedEnvironment } from '../environments/queries.ts';
import { findServer } from '../servers/queries.ts';
import type { Queryable } from '../shared/database.ts';

/** The server a deploy of the environment is anchored on (spec, Deploy resolution). */
export function resolvePlacement(db: Queryable, environment: OwnedEnvironment, project: Project): Server {
  const serverId = environment.serverId ?? (typeof project.options?.defaultServerId === 'string' ? project.options.defaultServerId : null);
  if (serverId === null) {
    throw conflict(
      'server_placement_required',
      "the environment has no server pin and the project no default server: set the environment's serverId or the project's options.defaultServerId",
    );
  }
  const server = findServer(db, serverId);
  if (!server || server.organizationId !== environment.organizationId) {
    throw conflict('server_placement_required', 'the placement server is not a server of this organization: set another one');
  }
  return server;
}

export const plannerServer = (row: Server): PlannerServer => ({
  id: row.id,
  name: row.name,
  hostname: row.hostname,
  labels: row.labels,
  connected: row.status === 'connected',
});
