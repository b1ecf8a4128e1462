/**
 * The organization's overlay fabric as its members see and change it:
 * - the settings (on/off and the two ranges): the owner's, like the other opt-ins that hand
 *   out power over the servers. The mesh range changes only while the fabric is off, the
 *   container range only while no network spans servers with it (addresses in use stay valid);
 * - the fabric view: every server of the organization, converged / pending / error / not a
 *   member with the reason, its allocations, and each peer with the endpoint it is reached at
 *   and the last handshake;
 * - readiness for the deploy: the servers where a spanning network could not run, and why;
 * - a server's key rotation, an admin's request to its daemon.
 * Each change commits, then hands the commands it queued to the notifier (the hub delivers them).
 */
import type { Db } from '../../db/client.ts';
import type { DaemonCommand, Organization, Server } from '../../db/schema/index.ts';
import { rangeProblem, rangesOverlap } from '../../fabric/allocate.ts';
import { chooseEndpoint, type FabricMember } from '../../fabric/config.ts';
import { DomainError, validationFailed } from '../../lib/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { FabricReadiness } from '../../compose/planner/plan.ts';
import { type Actor, authorize } from '../actor.ts';
import { DEFAULT_COMMAND_TTL_MS } from '../commands/service.ts';
import { dispatchQueued, type Notifier } from '../notify.ts';
import { findOrganization, updateOrganizationRow } from '../organizations/queries.ts';
import { serversOfOrganization } from '../servers/queries.ts';
import { loadServer } from '../servers/service.ts';
import type { Queryable } from '../shared/database.ts';
import { insertFabricCommand, membersOf, openKeyRotationOf, organizationHasSubnets, ROTATE_KEY_STATE } from './queries.ts';
import { reconcileFabric } from './reconcile.ts';

export interface FabricContext {
  db: Queryable;
  clock: Clock;
}

/** A fabric use case: commit, then the daemons of the servers that got a command are told. */
export interface FabricWriteContext {
  db: Db;
  clock: Clock;
  notify: Notifier;
}

export interface FabricSettingsChanges {
  enabled?: boolean;
  meshRange?: string;
  containerRange?: string;
}

export function loadFabricOrganization(db: Queryable, actor: Actor, organizationId: string): Organization {
  authorize(actor, organizationId, 'read', 'organization');
  return findOrganization(db, organizationId)!;
}

function checkRange(text: string, kind: 'mesh' | 'container', path: string): void {
  const problem = rangeProblem(text, kind);
  if (problem !== null) throw validationFailed(`${path} ${problem}`, path);
}

/**
 * Owners: turn the fabric on or off, or change its ranges. Commit (the organization and a fabric
 * command for each server whose configuration changes) -> notify (each daemon gets its command).
 */
export function updateFabricSettings(ctx: FabricWriteContext, actor: Actor, organizationId: string, changes: FabricSettingsChanges): Organization {
  const { organization, commands } = ctx.db.transaction((tx) => commitFabricSettings({ db: tx, clock: ctx.clock }, actor, organizationId, changes));
  dispatchQueued(ctx.notify, commands);
  return organization;
}

function commitFabricSettings(ctx: FabricContext, actor: Actor, organizationId: string, changes: FabricSettingsChanges): { organization: Organization; commands: DaemonCommand[] } {
  const { db } = ctx;
  authorize(actor, organizationId, 'manage', 'organization');
  const current = findOrganization(db, organizationId)!;
  const enabled = changes.enabled ?? current.isFabricEnabled;
  const meshRange = changes.meshRange ?? current.fabricMeshRange;
  const containerRange = changes.containerRange ?? current.fabricContainerRange;
  if (meshRange !== current.fabricMeshRange) {
    checkRange(meshRange, 'mesh', 'meshRange');
    if (current.isFabricEnabled) throw new DomainError('fabric_range_in_use', 'the mesh range can change only while the fabric is off: turn it off first', 'meshRange');
  }
  if (containerRange !== current.fabricContainerRange) {
    checkRange(containerRange, 'container', 'containerRange');
    if (organizationHasSubnets(db, organizationId)) {
      throw new DomainError('fabric_range_in_use', 'the container range can change only while no network spans servers with it: redeploy those environments on one server, or destroy them, first', 'containerRange');
    }
  }
  if (rangesOverlap(meshRange, containerRange)) throw validationFailed('the mesh range and the container range must not overlap', changes.containerRange !== undefined ? 'containerRange' : 'meshRange');
  const unchanged = enabled === current.isFabricEnabled && meshRange === current.fabricMeshRange && containerRange === current.fabricContainerRange;
  if (unchanged) return { organization: current, commands: [] };
  const organization = updateOrganizationRow(db, organizationId, { isFabricEnabled: enabled, fabricMeshRange: meshRange, fabricContainerRange: containerRange });
  // On: members join (or learn the new container range); off: they take the fabric down.
  const commands = enabled || current.isFabricEnabled ? reconcileFabric(db, organizationId, { now: ctx.clock.now() }) : [];
  return { organization, commands };
}

/**
 * Admins: the server's daemon makes a new WireGuard key pair (a key that may have leaked, or
 * routine hygiene). A durable command, delivered now or when the daemon connects (within the
 * commands' hour); the daemon puts the new private key on its interface and reports the public
 * one, which reconciles its peers. Asked again while one waits, the waiting one answers.
 */
export function requestKeyRotation(ctx: FabricWriteContext, actor: Actor, serverId: string): void {
  const command = ctx.db.transaction((db) => {
    loadServer(db, actor, serverId, 'write');
    return openKeyRotationOf(db, serverId) ?? insertFabricCommand(db, serverId, { state: ROTATE_KEY_STATE }, new Date(ctx.clock.now().getTime() + DEFAULT_COMMAND_TTL_MS));
  });
  dispatchQueued(ctx.notify, [command]);
}

export type MemberState = 'converged' | 'pending' | 'error' | 'not_member';

export interface FabricServerView {
  server: Server;
  state: MemberState;
  /** What is true now, in a sentence (null when converged). */
  reason: string | null;
  member: ReturnType<typeof membersOf>[number] | null;
  peers: { serverId: string; name: string; endpoint: string | null; lastHandshakeAt: Date | null }[];
  /** When an admin asked for a new key its daemon has not made yet. */
  keyRotationRequestedAt: Date | null;
}

export interface FabricView {
  organization: Organization;
  servers: FabricServerView[];
}

function stateOf(server: Server, member: FabricServerView['member'], enabled: boolean): { state: MemberState; reason: string | null } {
  if (!enabled) return { state: 'not_member', reason: 'the fabric is off' };
  if (member === null) {
    return server.wireguardPublicKey === null
      ? { state: 'not_member', reason: 'its daemon has not reported a WireGuard key yet (connect it, or update it to this version)' }
      : { state: 'pending', reason: 'joining the fabric' };
  }
  if (member.appliedHash === member.desiredHash) return { state: 'converged', reason: null };
  if (member.error !== null && member.errorHash === member.desiredHash) return { state: 'error', reason: member.error };
  if (server.status !== 'connected') return { state: 'pending', reason: 'its daemon is not connected; the configuration waits for it' };
  return { state: 'pending', reason: 'its daemon has not applied the current configuration yet' };
}

/** Every server of the organization with its fabric state, its allocations and its peers. */
export function fabricView(db: Queryable, actor: Actor, organizationId: string): FabricView {
  const organization = loadFabricOrganization(db, actor, organizationId);
  const servers = serversOfOrganization(db, organizationId);
  const members = new Map(membersOf(db, organizationId).map((member) => [member.serverId, member]));
  const byId = new Map(servers.map((server) => [server.id, server]));
  const asMember = (server: Server): FabricMember | null => {
    const member = members.get(server.id);
    if (member === undefined || server.wireguardPublicKey === null) return null;
    return {
      serverId: server.id,
      publicKey: server.wireguardPublicKey,
      meshAddress: member.meshAddress,
      listenPort: member.listenPort,
      candidates: server.fabricCandidates,
      endpoint: server.fabricEndpoint,
      datacenter: server.datacenter,
    };
  };
  const fabricMembers = servers.map(asMember).filter((member): member is FabricMember => member !== null);
  return {
    organization,
    servers: servers.map((server) => {
      const member = members.get(server.id) ?? null;
      const self = asMember(server);
      const peers =
        self === null
          ? []
          : fabricMembers
              .filter((peer) => peer.serverId !== server.id)
              .map((peer) => {
                const at = member!.handshakes[peer.serverId];
                return { serverId: peer.serverId, name: byId.get(peer.serverId)!.name, endpoint: chooseEndpoint(self, peer), lastHandshakeAt: at === undefined ? null : new Date(at) };
              });
      const keyRotationRequestedAt = openKeyRotationOf(db, server.id)?.createdAt ?? null;
      return { server, member, peers, keyRotationRequestedAt, ...stateOf(server, member, organization.isFabricEnabled) };
    }),
  };
}

/** What the planner needs: the fabric on, and the servers where a spanning network cannot run yet. */
export function fabricReadiness(db: Queryable, organization: Organization): FabricReadiness {
  if (!organization.isFabricEnabled) return { enabled: false };
  const members = new Map(membersOf(db, organization.id).map((member) => [member.serverId, member]));
  const unready = new Map<string, string>();
  for (const server of serversOfOrganization(db, organization.id)) {
    const { state, reason } = stateOf(server, members.get(server.id) ?? null, true);
    if (state !== 'converged') unready.set(server.id, reason!);
  }
  return { enabled: true, unready };
}
