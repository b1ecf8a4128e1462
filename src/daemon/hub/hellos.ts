/**
 * The hellos of daemon connections, written in batches (src/daemon/hub.ts), like disconnects
 * (src/daemon/hub/disconnects.ts). A hello is answered when the hub handles it (welcome, open
 * commands); the record it connects is written after that turn with the other hellos answered
 * meanwhile, at most CONNECTION_BATCH in one transaction. A commit per hello, with its event, stalled the server when
 * thousands of daemons reconnected at once. A connection that closed or was replaced meanwhile is
 * not written (its disconnect finds the record as the last written hello left it). Should a batch
 * fail (two records claiming one machine id in it), each hello is written alone, so one cannot
 * hold up the rest; one that still fails is refused (the hub closes it like a frame that fails).
 */
import type { HelloFrame } from '../../contract/daemon-protocol.ts';
import type { Db } from '../../db/client.ts';
import type { Server } from '../../db/schema/index.ts';
import { connectServer, type HelloOutcome } from '../../domain/daemons/connections.ts';
import type { Queryable } from '../../domain/shared/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { HubConnection } from './connection.ts';
import { CONNECTION_BATCH } from './disconnects.ts';

/** A hello admitted and answered, its record not written yet. */
export interface PendingHello {
  connection: HubConnection;
  row: Server;
  hello: HelloFrame;
  at: Date;
  outcome: HelloOutcome;
}

export interface HelloOptions {
  db: Db;
  logger: Logger;
  /** Runs work in a later event-loop turn, after the hub's work waiting (src/daemon/hub/slices.ts). */
  later(work: () => void): void;
  /** Whether the connection is still its server's live one (else its hello is not written). */
  isCurrent(pending: PendingHello): boolean;
  /** The servers a batch recorded connected, after the commit. */
  connected(rows: Server[]): void;
  /** A hello that could not be written even alone. */
  refused(pending: PendingHello): void;
}

export class HelloBatches {
  private readonly pending: PendingHello[] = [];
  private scheduled = false;

  constructor(private readonly options: HelloOptions) {}

  /** A hello answered: written after the current event-loop turn. */
  add(pending: PendingHello): void {
    this.pending.push(pending);
    this.schedule();
  }

  /** Writes the hellos so far, at most `limit` in one transaction; the rest in a later turn. */
  flush(limit = CONNECTION_BATCH): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    // Taken off in place: copying the rest for every batch of a 10,000-daemon storm added up.
    const batch = this.pending.splice(0, limit).filter((pending) => this.options.isCurrent(pending));
    const connect = (db: Queryable, pending: PendingHello) => connectServer(db, pending.row, pending.hello, pending.at, pending.outcome) ?? [];
    let rows: Server[];
    try {
      rows = this.options.db.transaction((tx) => batch.flatMap((pending) => connect(tx, pending)));
    } catch {
      rows = batch.flatMap((pending) => {
        try {
          return connect(this.options.db, pending);
        } catch (error) {
          this.options.logger.error('recording a daemon hello failed', { serverId: pending.row.id, error: (error as Error).message });
          this.options.refused(pending);
          return [];
        }
      });
    }
    this.options.connected(rows);
    if (this.pending.length > 0) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.options.later(() => this.flush());
  }
}
