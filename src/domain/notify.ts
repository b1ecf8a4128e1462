/**
 * What a use case tells the rest of the process once its change has committed: subscribers of
 * /ws/client/v1 (the change feed) and the daemons (delivery of queued commands, a rotated
 * credential). The daemon hub implements it (DaemonHub.notifier); use cases call it after their
 * transaction, so nobody hears of a change that rolled back.
 */
import type { Container, Deployment, Server } from '../db/schema/index.ts';

export interface Notifier {
  deployment(row: Deployment): void;
  containers(environmentId: string, rows: readonly Container[]): void;
  /** A server enrolled, connected, disconnected, renamed or relabelled. */
  server(row: Server): void;
  serverDeleted(row: Server): void;
  /** The server has commands queued: deliver them now when its daemon is connected. */
  dispatch(serverId: string): void;
  /** The server's credential was replaced: its live connection (holding the old one) ends. */
  credentialRotated(serverId: string): void;
}

/** Delivers what a use case queued: each server that got a command, once. */
export function dispatchQueued(notify: Notifier, commands: readonly { serverId: string }[]): void {
  for (const serverId of new Set(commands.map((command) => command.serverId))) notify.dispatch(serverId);
}

/** A committed deployment with its pre-allocated containers and commands: subscribers hear of the rows, each server gets its command. */
export function announceEnqueued(notify: Notifier, enqueued: { deployment: Deployment; containers: readonly Container[]; commands: readonly { serverId: string }[] }): void {
  notify.deployment(enqueued.deployment);
  notify.containers(enqueued.deployment.environmentId, enqueued.containers);
  dispatchQueued(notify, enqueued.commands);
}
