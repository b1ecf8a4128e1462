/**
 * Who a daemon's hello connects (src/daemon/hub.ts): the canonical server record for the
 * connection's claim, recorded connected. A unix-socket hello is the local slot, whose daemon key
 * is pinned on first use; a tcp hello must name its credential's server, which must still exist.
 * Two machines presenting one identity flag the records `duplicate_machine_id` and are logged;
 * nothing is merged. A refused hello closes the connection and changes nothing.
 */
import { CLOSE_CODES, type HelloFrame } from '../../contract/daemon-protocol.ts';
import type { Db } from '../../db/client.ts';
import type { Server } from '../../db/schema/index.ts';
import { checkLocalKey, connectServer, findMachineTwin, localServerFor } from '../../domain/daemons/connections.ts';
import { findServer } from '../../domain/servers/queries.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { HubConnection } from './connection.ts';

export interface HelloContext {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Closes a connection with a protocol close code. */
  terminate(connection: HubConnection, code: number, reason: string): void;
}

/**
 * The server the hello connects, now recorded connected; undefined after closing the connection.
 * `previousOf` finds a server's live connection, if any, which the caller then replaces.
 */
export function admitHello(ctx: HelloContext, connection: HubConnection, hello: HelloFrame, previousOf: (serverId: string) => HubConnection | undefined): Server | undefined {
  const { db, logger } = ctx;
  const resolved = resolveServer(ctx, connection, hello);
  if (!resolved) return undefined;
  const recordKey = resolved.isLocal && acceptsLocalKey(ctx, connection, resolved, hello);
  if (connection.closed) return undefined;
  const flagged = new Set<string>();
  const previous = previousOf(resolved.id);
  if (previous && previous.hello && (previous.hello.machineId !== hello.machineId || previous.hello.hostname !== hello.hostname)) {
    flagged.add(resolved.id);
    logger.warn('two machines are connected as one server; the newer connection replaces the older. Is an identity copied between machines?', {
      serverId: resolved.id,
      machineIds: [previous.hello.machineId, hello.machineId],
      hostnames: [previous.hello.hostname, hello.hostname],
    });
  }
  if (resolved.machineId !== null && resolved.machineId !== hello.machineId) {
    flagged.add(resolved.id);
    logger.warn('a daemon presented a machine id other than the one its server enrolled with', {
      serverId: resolved.id,
      enrolledMachineId: resolved.machineId,
      helloMachineId: hello.machineId,
    });
  }
  const twin = findMachineTwin(db, resolved.organizationId, hello.machineId, resolved.id);
  if (twin) {
    flagged.add(resolved.id).add(twin.id);
    logger.warn('two server records present one machine id; they are kept apart', { serverIds: [resolved.id, twin.id], machineId: hello.machineId });
  }
  return connectServer(db, resolved, hello, ctx.clock.now(), { flagged: [...flagged], claimMachineId: !twin, recordKey });
}

/**
 * The local slot's pinned key: true when the hello's key must be recorded (first use, or after
 * an operator's reset); a refused key closes the connection (4010) and leaves the row alone.
 */
function acceptsLocalKey(ctx: HelloContext, connection: HubConnection, local: Server, hello: HelloFrame): boolean {
  const check = checkLocalKey(local, hello);
  if (!check.accepted) {
    ctx.logger.warn('refused a local daemon whose key is not the pinned one; the key is unchanged', {
      serverId: local.id,
      pinnedKeyId: local.daemonKeyId,
      offeredKeyId: hello.daemonKey?.keyId ?? null,
    });
    ctx.terminate(connection, CLOSE_CODES.localKeyRefused, check.reason);
    return false;
  }
  if (check.record) {
    ctx.logger.warn(local.publicKey === null ? 'pinned the local daemon key' : 'replaced the local daemon key after an operator reset', {
      serverId: local.id,
      previousKeyId: local.daemonKeyId,
      keyId: hello.daemonKey!.keyId,
    });
  }
  return check.record;
}

/** The canonical record for this hello, or undefined after closing the connection. */
function resolveServer(ctx: HelloContext, connection: HubConnection, hello: HelloFrame): Server | undefined {
  const { db, logger } = ctx;
  if (connection.claim.listener === 'unix') {
    const local = localServerFor(db, hello);
    if (!local) ctx.terminate(connection, CLOSE_CODES.tryAgainLater, 'Panel is not installed yet; no organization for the local server');
    return local;
  }
  const { serverId } = connection.claim;
  if (hello.serverId !== undefined && hello.serverId !== serverId) {
    logger.warn('a daemon hello named another server than its credential; refused', { serverId, claimed: hello.serverId });
    ctx.terminate(connection, CLOSE_CODES.unauthorized, 'hello names another server than the credential');
    return undefined;
  }
  const row = findServer(db, serverId);
  if (!row) ctx.terminate(connection, CLOSE_CODES.unauthorized, 'the server was deleted');
  return row;
}
