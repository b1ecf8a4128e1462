/**
 * The disconnects of closed daemon connections, written in batches (src/daemon/hub.ts). A write
 * per close in the close callback stalled the server for seconds when thousands of daemons
 * dropped at once (their network, a restart on their side); a batch is one commit, and requests
 * are served between batches. A server that reconnected meanwhile stays connected. A failed
 * write is kept and tried again.
 */
import type { Db } from '../../db/client.ts';
import type { Server } from '../../db/schema/index.ts';
import { markDisconnected } from '../../domain/daemons/connections.ts';
import type { Logger } from '../../lib/logger.ts';

/** Disconnects written in one transaction at most; the rest wait for the next event-loop turn. */
const DISCONNECT_BATCH = 500;

export interface DisconnectOptions {
  db: Db;
  logger: Logger;
  /** Whether the server has a live connection again (then it stays connected). */
  isConnected(serverId: string): boolean;
  /** A server recorded disconnected, after the commit. */
  disconnected(row: Server): void;
}

export class DisconnectBatches {
  /** Servers whose connection closed, with when. */
  private readonly closed = new Map<string, Date>();
  private scheduled = false;

  constructor(private readonly options: DisconnectOptions) {}

  /** The server's connection closed at `at`: written after the current event-loop turn. */
  add(serverId: string, at: Date): void {
    this.closed.set(serverId, at);
    this.schedule();
  }

  /** Writes the disconnects so far, at most `limit` in one transaction; the rest on the next turn. */
  flush(limit = DISCONNECT_BATCH): void {
    this.scheduled = false;
    const batch = [...this.closed].slice(0, limit);
    for (const [serverId] of batch) this.closed.delete(serverId);
    try {
      const rows = this.options.db.transaction((tx) =>
        batch.flatMap(([serverId, at]) => (this.options.isConnected(serverId) ? [] : (markDisconnected(tx, serverId, at) ?? []))),
      );
      for (const row of rows) this.options.disconnected(row);
    } catch (error) {
      for (const [serverId, at] of batch) if (!this.closed.has(serverId)) this.closed.set(serverId, at);
      this.options.logger.error('recording disconnected daemons failed; tried again on the next tick', { servers: batch.length, error: (error as Error).message });
      return;
    }
    if (this.closed.size > 0) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }
}
