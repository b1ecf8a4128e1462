/**
 * Live servers of one organization over /ws/client/v1 (live-subscription.ts): the snapshot (every
 * server of the organization), then each pushed change (enrolled, connected, disconnected,
 * renamed, deleted).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Server } from './deploy-api.ts';
import type { ServersFrame } from '../../src/contract/live.ts';
import { type LiveConnection, subscribeLive } from './live-subscription.ts';

export interface LiveServers {
  connection: LiveConnection;
  problem?: string;
  /** Every server of the organization in list order; undefined until the first snapshot. */
  servers: Server[] | undefined;
}


/** GET /servers lists by id (time-ordered); pushed rows keep that order. */
const byId = (rows: Server[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));

function applyFrame(servers: Server[], frame: ServersFrame): Server[] {
  if (frame.type === 'subscribed') return byId(frame.servers);
  if (frame.type === 'serverDeleted') return servers.filter((server) => server.id !== frame.serverId);
  return byId([...servers.filter((server) => server.id !== frame.server.id), frame.server]);
}

export function useLiveServers(organizationId: string): LiveServers {
  const [state, setState] = useState<LiveServers & { organizationId: string }>({ organizationId, connection: 'connecting', servers: undefined });
  useEffect(() => {
    setState({ organizationId, connection: 'connecting', servers: undefined });
    return subscribeLive<ServersFrame>(
      { organizationId },
      (frame) => setState((previous) => ({ ...previous, organizationId, servers: applyFrame(previous.servers ?? [], frame) })),
      (connection, problem) => setState((previous) => ({ ...previous, connection, problem })),
    );
  }, [organizationId]);
  // Until the effect of a new organization has run, the previous one's servers are not shown.
  return state.organizationId === organizationId ? state : { connection: 'connecting', servers: undefined };
}
