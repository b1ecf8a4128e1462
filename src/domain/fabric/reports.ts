/**
 * What daemons tell the control plane about the fabric: the `fabric` frame (key, addresses,
 * applied hash, error, handshakes) and the results of `fabric` commands. The caller runs each in
 * one transaction and hands the commands it answers to the hub.
 *
 * - A new key or new addresses are the server's to report: stored on the server, and with the
 *   fabric on, the mesh is reconciled (the server joins, or its peers learn where it is now).
 * - A member's applied hash, error and handshakes (by peer server) are stored as reported.
 * - A member whose daemon applied something else than the configuration last sent, with nothing
 *   open for it, gets the configuration again (its command expired while it was away, or the
 *   server lost its state) — except one that failed on exactly that configuration: that one is
 *   retried only when the daemon connects again (it may have been fixed: wg installed, ...).
 * - A server still running a fabric its organization turned off gets `down` again when its
 *   daemon connects (the first one expired while it was away, or failed).
 */
import { FABRIC_HASH_PATTERN, type FabricStatus } from '../../contract/fabric.ts';
import { deepEqual } from '../../compose/values.ts';
import type { DaemonCommand } from '../../db/schema/index.ts';
import { describeFailure } from '../commands/service.ts';
import { findOrganization } from '../organizations/queries.ts';
import { findServer, updateServerRow } from '../servers/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { findMember, keyedServersOf, openFabricCommandsOf, updateMember } from './queries.ts';
import { reconcileFabric, type ReconcileOptions, resendFabric } from './reconcile.ts';

export interface StatusContext extends ReconcileOptions {
  /** The first fabric frame since the daemon connected: a failed configuration is tried again. */
  firstOfConnection: boolean;
}

export function recordFabricStatus(db: Queryable, serverId: string, status: FabricStatus, context: StatusContext): DaemonCommand[] {
  const row = findServer(db, serverId);
  if (!row) return [];
  const organization = findOrganization(db, row.organizationId)!;
  const commands: DaemonCommand[] = [];
  if (row.wireguardPublicKey !== status.publicKey || !deepEqual(row.fabricCandidates, status.candidates)) {
    updateServerRow(db, serverId, { wireguardPublicKey: status.publicKey, fabricCandidates: status.candidates });
    if (organization.isFabricEnabled) commands.push(...reconcileFabric(db, organization.id, context));
  }
  const member = findMember(db, serverId);
  if (member === undefined) {
    if (!organization.isFabricEnabled && status.appliedHash !== null && context.firstOfConnection && openFabricCommandsOf(db, serverId).length === 0) {
      commands.push(resendFabric(db, organization, serverId, context)!);
    }
    return commands;
  }
  const serverOfKey = new Map(keyedServersOf(db, organization.id).map((server) => [server.publicKey, server.id]));
  const handshakes: Record<string, number> = {};
  for (const peer of status.peers) {
    const peerId = serverOfKey.get(peer.publicKey);
    if (peerId !== undefined && peer.lastHandshakeAt !== null) handshakes[peerId] = peer.lastHandshakeAt;
  }
  const failed = status.error === null ? null : describeFailure(status.error);
  const updated = updateMember(db, serverId, {
    appliedHash: status.appliedHash,
    // An error reported while the current configuration is in place is about something else (a
    // peer's address no longer resolving, ...): it counts against the current configuration.
    ...(failed === null ? (status.appliedHash === member.desiredHash ? { error: null, errorHash: null } : {}) : { error: failed, errorHash: member.desiredHash }),
    handshakes,
    reportedAt: context.now,
  })!;
  const queuedNow = commands.some((command) => command.serverId === serverId);
  const retry = updated.errorHash !== updated.desiredHash || context.firstOfConnection;
  if (updated.appliedHash !== updated.desiredHash && !queuedNow && retry && openFabricCommandsOf(db, serverId).length === 0) {
    const resent = resendFabric(db, organization, serverId, context);
    if (resent) commands.push(resent);
  }
  return commands;
}

/** A `fabric` command's result: the applied hash on success, the error against the configuration sent. */
export function recordFabricResult(db: Queryable, command: DaemonCommand, outcome: { ok: true; data?: Record<string, unknown> } | { ok: false; error: { code: string; message: string } }): void {
  const member = findMember(db, command.serverId);
  if (member === undefined) return;
  if (outcome.ok) {
    const applied = outcome.data?.appliedHash;
    if (typeof applied === 'string' && FABRIC_HASH_PATTERN.test(applied)) {
      updateMember(db, command.serverId, { appliedHash: applied, ...(applied === member.desiredHash ? { error: null, errorHash: null } : {}) });
    }
    return;
  }
  // Superseded commands never finish (their status is no longer open): a failure is the newest one's.
  updateMember(db, command.serverId, { error: describeFailure(outcome.error), errorHash: member.desiredHash });
}
