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

/**
 * Disconnects (and hellos, src/daemon/hub/hellos.ts) written in one transaction at most; the rest
 * are written by the next batches, each the hub's work of a later turn (src/daemon/hub/slices.ts).
 * 25 keep a batch within a turn's budget: 100 took 2.6 ms (hellos) and 4.7 ms (disconnects) of CPU.
 */
export const CONNECTION_BATCH = 25;

export interface DisconnectOptions {
  db: Db;
  logger: Logger;
  /** Runs work in a later event-loop turn, after the hub's work waiting (src/daemon/hub/slices.ts). */
  later(work: () => void): void;
  /** Whether the server has a live connection again (then it stays connected). */
  isConnected(serverId: string): boolean;
  /** The servers a batch recorded disconnected, after the commit. */
  disconnected(rows: Server[]): void;
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

  /** Writes the disconnects so far, at most `limit` in one transaction; the rest in a later turn. */
  flush(limit = CONNECTION_BATCH): void {
    this.scheduled = false;
    if (this.closed.size === 0) return;
    const batch: [string, Date][] = [];
    for (const entry of this.closed) {
      if (batch.length >= limit) break;
      batch.push(entry);
    }
    for (const [serverId] of batch) this.closed.delete(serverId);
    try {
      const rows = this.options.db.transaction((tx) =>
        batch.flatMap(([serverId, at]) => (this.options.isConnected(serverId) ? [] : (markDisconnected(tx, serverId, at) ?? []))),
      );
      this.options.disconnected(rows);
    } catch (error) {
      for (const [serverId, at] of batch) if (!this.closed.has(serverId)) this.closed.set(serverId, at);
      this.options.logger.error('recording disconnected daemons failed; tried again at the next tick', { servers: batch.length, error: (error as Error).message });
      return;
    }
    if (this.closed.size > 0) this.schedule();
  }

  /** Writes again what a failed write left (the hub's tick asks: a failing database is not asked every turn). */
  retry(): void {
    if (this.closed.size > 0) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.options.later(() => this.flush());
  }
}
