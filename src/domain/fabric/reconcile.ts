/**
 * Reconciling an organization's fabric: who is a member, what each member's configuration is,
 * and the durable commands that carry it (ARCHITECTURE.md §8, Fabric). Called inside the
 * transaction of whatever changed it: the fabric turned on or off, a daemon reporting a new key
 * or new addresses, an admin setting an endpoint or a datacenter, a server deleted.
 *
 * - Fabric on: every server of the organization whose daemon reported a WireGuard key is a
 *   member (a disconnected one stays: its peers keep their tunnels, and the data plane does not
 *   depend on the control channel). A new member gets the lowest free mesh address and port.
 *   Every member's configuration is computed (src/fabric/config.ts); where its hash differs
 *   from the one last sent, the member's open fabric commands are superseded and a new one is
 *   queued. Members whose peers did not change get nothing.
 * - Fabric off: every member row goes (addresses and ports are free again) and each of those
 *   servers gets a `down` command: the daemon removes the interface, its routes and rules.
 *
 * Answers the queued commands: the caller hands their servers to the hub after committing.
 */
import type { FabricConfig } from '../../contract/fabric.ts';
import type { DaemonCommand, FabricMemberRow, JsonObject, Organization } from '../../db/schema/index.ts';
import { allocateMembers, DEFAULT_LISTEN_PORT, type MemberAllocation } from '../../fabric/allocate.ts';
import { fabricConfigHash, fabricConfigs } from '../../fabric/config.ts';
import { DEFAULT_COMMAND_TTL_MS } from '../commands/service.ts';
import { findOrganization } from '../organizations/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { deleteMembers, insertFabricCommand, insertMember, keyedServersOf, membersOf, supersedeFabricCommands, updateMember } from './queries.ts';

export interface ReconcileOptions {
  now: Date;
  commandTtlMs?: number;
}

/** The `fabric` command's payloads: a member's configuration, or taking the fabric down. */
export const fabricUpPayload = (config: FabricConfig, hash: string): JsonObject => ({ state: 'up', config, hash });
export const FABRIC_DOWN_PAYLOAD: JsonObject = { state: 'down' };

/** Every member's configuration from the keyed servers and their allocations. */
function configsOf(db: Queryable, organization: Organization, allocations: readonly MemberAllocation[]): Map<string, FabricConfig> {
  const allocationOf = new Map(allocations.map((allocation) => [allocation.serverId, allocation]));
  const members = keyedServersOf(db, organization.id)
    .filter((row) => allocationOf.has(row.id))
    .map((row) => ({
      serverId: row.id,
      publicKey: row.publicKey,
      meshAddress: allocationOf.get(row.id)!.meshAddress,
      listenPort: allocationOf.get(row.id)!.listenPort,
      candidates: row.candidates,
      endpoint: row.endpoint,
      datacenter: row.datacenter,
    }));
  return fabricConfigs({ meshRange: organization.fabricMeshRange, containerRange: organization.fabricContainerRange }, members);
}

const expiryOf = (options: ReconcileOptions) => new Date(options.now.getTime() + (options.commandTtlMs ?? DEFAULT_COMMAND_TTL_MS));

/** Supersedes what the server has open and queues `payload` for it. */
function queueFabricCommand(db: Queryable, serverId: string, payload: JsonObject, options: ReconcileOptions): DaemonCommand {
  supersedeFabricCommands(db, serverId, options.now);
  return insertFabricCommand(db, serverId, payload, expiryOf(options));
}

export function reconcileFabric(db: Queryable, organizationId: string, options: ReconcileOptions): DaemonCommand[] {
  const organization = findOrganization(db, organizationId);
  if (!organization) return [];
  const existing = membersOf(db, organizationId);
  if (!organization.isFabricEnabled) {
    deleteMembers(
      db,
      existing.map((member) => member.serverId),
    );
    return existing.map((member) => queueFabricCommand(db, member.serverId, FABRIC_DOWN_PAYLOAD, options));
  }

  const keyedIds = new Set(keyedServersOf(db, organizationId).map((row) => row.id));
  const staying = existing.filter((member) => keyedIds.has(member.serverId));
  deleteMembers(
    db,
    existing.filter((member) => !keyedIds.has(member.serverId)).map((member) => member.serverId),
  );
  const current = new Map<string, FabricMemberRow>(staying.map((member) => [member.serverId, member]));
  const joining = [...keyedIds].filter((id) => !current.has(id));
  const joined = allocateMembers(organization.fabricMeshRange, DEFAULT_LISTEN_PORT, staying, joining);
  const commands: DaemonCommand[] = [];
  for (const [serverId, config] of configsOf(db, organization, [...staying, ...joined])) {
    const hash = fabricConfigHash(config);
    const member = current.get(serverId);
    if (member === undefined) {
      const { meshAddress, listenPort } = joined.find((allocation) => allocation.serverId === serverId)!;
      insertMember(db, { serverId, organizationId, meshAddress, listenPort, desiredHash: hash });
    } else if (member.desiredHash === hash) {
      continue;
    } else {
      updateMember(db, serverId, { desiredHash: hash });
    }
    commands.push(queueFabricCommand(db, serverId, fabricUpPayload(config, hash), options));
  }
  return commands;
}

/**
 * The member's current configuration queued again (its daemon reported something else applied
 * and nothing is open for it: the last command expired, or the server lost its state), or the
 * `down` command for a server that still runs a fabric its organization turned off.
 */
export function resendFabric(db: Queryable, organization: Organization, serverId: string, options: ReconcileOptions): DaemonCommand | null {
  if (!organization.isFabricEnabled) return queueFabricCommand(db, serverId, FABRIC_DOWN_PAYLOAD, options);
  const config = configsOf(db, organization, membersOf(db, organization.id)).get(serverId);
  if (config === undefined) return null;
  const hash = fabricConfigHash(config);
  updateMember(db, serverId, { desiredHash: hash });
  return queueFabricCommand(db, serverId, fabricUpPayload(config, hash), options);
}
