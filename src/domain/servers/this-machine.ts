/**
 * "This machine" as the Servers page shows it: whether the control plane's own host is connected
 * as the organization's local server, and if not, why, in words, with the one command that fixes
 * it. Only the organization that owns the local slot (the installing one) sees it.
 */
import type { ThisMachine } from '../../contract/servers.ts';
import type { Server } from '../../db/schema/index.ts';
import { type Actor, authorize } from '../actor.ts';

/** What the local daemon's supervisor says (src/daemon/local-supervisor.ts). */
export interface SupervisedStatus {
  state: 'external' | 'checking' | 'no_engine' | 'running' | 'restarting' | 'refused';
  problem: string | null;
  fix: string | null;
}


export interface ThisMachineFacts {
  /** The local server record, once a local daemon said hello. */
  local: Server | undefined;
  /** The organization the local slot belongs (or will belong) to. */
  slotOrganizationId: string | undefined;
  isConnected(serverId: string): boolean;
  /** Absent when `panel serve` does not run the daemon itself (PANEL_LOCAL_DAEMON=off). */
  supervised: SupervisedStatus | undefined;
}

const EXTERNAL: SupervisedStatus = {
  state: 'external',
  problem: "This machine's daemon runs as the panel-daemon service, and it is not connected.",
  fix: 'sudo systemctl enable --now panel-daemon',
};

export function describeThisMachine(actor: Actor, organizationId: string, facts: ThisMachineFacts): ThisMachine {
  authorize(actor, organizationId, 'read', 'organization');
  const { local } = facts;
  const applies = (local?.organizationId ?? facts.slotOrganizationId) === organizationId;
  const record = applies && local ? { serverId: local.id, name: local.name } : { serverId: null, name: null };
  if (!applies) return { applies, ...record, state: 'external', problem: null, fix: null };
  if (local && facts.isConnected(local.id)) return { applies, ...record, state: 'connected', problem: null, fix: null };
  const supervised = facts.supervised ?? EXTERNAL;
  if (supervised.state === 'running') {
    return { applies, ...record, state: 'connecting', problem: 'The local daemon is running and connecting to Panel.', fix: null };
  }
  return { applies, ...record, ...supervised };
}
