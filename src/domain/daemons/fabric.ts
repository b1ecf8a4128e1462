/**
 * A daemon's `fabric` frame (src/contract/fabric.ts): recorded in one transaction
 * (src/domain/fabric/reports.ts); the fabric commands it queued are dispatched after the commit.
 * Only the connection's own server is ever touched.
 */
import type { FabricStatus } from '../../contract/fabric.ts';
import { recordFabricStatus } from '../fabric/reports.ts';
import { dispatchQueued } from '../notify.ts';
import type { FabricFrame } from '../../contract/daemon-protocol.ts';
import type { DaemonOf, OutcomeContext } from './outcomes.ts';

export function onFabricStatus(ctx: OutcomeContext, daemon: DaemonOf, frame: FabricFrame, firstOfConnection: boolean): void {
  const { type: _type, ...status } = frame;
  const commands = ctx.db.transaction((tx) => recordFabricStatus(tx, daemon.serverId, status satisfies FabricStatus, { now: ctx.now(), firstOfConnection }));
  if (commands.length > 0) ctx.logger.info('fabric commands queued', { reportedBy: daemon.serverId, servers: commands.map((command) => command.serverId) });
  dispatchQueued(ctx.notify, commands);
}
