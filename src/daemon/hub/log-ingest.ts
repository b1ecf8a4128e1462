/**
 * Container logs arriving from daemons (`logs` frames): checked (slots.ts), handed at once to live
 * subscribers, and gathered per container into chunks that are written every few seconds or when
 * large (src/domain/logs/store.ts); then the organization's history is held within its bounds.
 *
 * Memory stays bounded whatever the daemons send: a container's buffer is written once it holds
 * CHUNK_BYTES, all buffers once they hold MAX_BUFFERED_BYTES together; a subscriber is a socket
 * whose own backpressure the client route watches.
 */
import type { Queryable } from '../../domain/shared/database.ts';
import { droppedMarker, type LineStream, type StoredLine, streamCode } from '../../domain/logs/lines.ts';
import { insertChunk, organizationsWithLogs, pruneOrganization, retainedBytes, type RetentionLimits, retentionOf } from '../../domain/logs/store.ts';
import type { Logger } from '../../lib/logger.ts';
import type { LogsFrame } from '../../contract/daemon-protocol.ts';
import { Listeners } from './feed.ts';
import type { DaemonOf } from '../../domain/daemons/outcomes.ts';
import { type ResolvedSlot, SlotResolver } from './slots.ts';

/** A container's buffer is written when it is this old... */
export const CHUNK_AGE_MS = 5_000;
/** ...or this large. */
export const CHUNK_BYTES = 48 * 1024;
/** Everything is written when the buffers together hold this much. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const LINE_OVERHEAD = 24;
/** A prune over the size bound frees down to this share of it, so not every write prunes. */
const PRUNE_TO = 0.95;

/** Lines as subscribers get them: one container's, oldest first. */
export interface LiveLines {
  serviceId: string;
  environmentId: string;
  containerId: string | null;
  ordinal: number;
  containerName: string;
  lines: { at: number; stream: LineStream; text: string }[];
}

interface Buffer {
  slot: ResolvedSlot;
  lines: StoredLine[];
  bytes: number;
  openedAt: number;
}

export interface LogIngestOptions {
  db: Queryable;
  logger: Logger;
  now: () => number;
  retention: RetentionLimits;
}

/** Live listener keys: what a subscription names. */
export const liveKey = {
  service: (id: string) => `service:${id}`,
  environment: (id: string) => `environment:${id}`,
  container: (id: string) => `container:${id}`,
};

export class LogIngest {
  readonly live: Listeners<LiveLines>;
  private readonly slots: SlotResolver;
  private readonly buffers = new Map<string, Buffer>();
  private bufferedBytes = 0;
  /** Retained bytes per organization, read once and then kept up to date. */
  private readonly retained = new Map<string, number>();
  /** Counters for /metrics. */
  readonly stats = { lines: 0, dropped: 0, refused: 0 };

  constructor(private readonly options: LogIngestOptions) {
    this.slots = new SlotResolver(options.db, options.now);
    this.live = new Listeners((error) => options.logger.error('log listener failed', { error: String(error) }));
  }

  /** One `logs` frame from a daemon. */
  ingest(daemon: DaemonOf, frame: LogsFrame): void {
    const now = this.options.now();
    for (const batch of frame.containers) {
      const slot = this.slots.resolve(daemon, batch);
      if (!slot) {
        this.stats.refused += batch.lines.length;
        continue;
      }
      const lines: StoredLine[] = [];
      if (batch.dropped) {
        this.stats.dropped += batch.dropped;
        lines.push([batch.lines[0]?.[0] ?? now, 2, droppedMarker(batch.dropped)]);
      }
      for (const [at, stream, text] of batch.lines) lines.push([at, streamCode(stream), text]);
      if (lines.length === 0) continue;
      this.stats.lines += batch.lines.length;
      this.publish(slot, lines);
      this.append(slot, lines, now);
    }
    if (this.bufferedBytes >= MAX_BUFFERED_BYTES) this.flush();
  }

  private publish(slot: ResolvedSlot, lines: StoredLine[]): void {
    const keys = [liveKey.service(slot.serviceId), liveKey.environment(slot.environmentId), ...(slot.containerRowId ? [liveKey.container(slot.containerRowId)] : [])];
    if (!keys.some((key) => this.live.has(key))) return;
    const event: LiveLines = {
      serviceId: slot.serviceId,
      environmentId: slot.environmentId,
      containerId: slot.containerRowId,
      ordinal: slot.ordinal,
      containerName: slot.containerName,
      lines: lines.map(([at, code, text]) => ({ at, stream: code === 0 ? 'stdout' : code === 1 ? 'stderr' : 'panel', text })),
    };
    for (const key of keys) this.live.publish(key, event);
  }

  private append(slot: ResolvedSlot, lines: StoredLine[], now: number): void {
    const key = `${slot.serviceId}|${slot.containerRowId ?? ''}|${slot.ordinal}|${slot.containerName}`;
    let buffer = this.buffers.get(key);
    if (!buffer) this.buffers.set(key, (buffer = { slot, lines: [], bytes: 0, openedAt: now }));
    for (const line of lines) {
      buffer.lines.push(line);
      const bytes = line[2].length + LINE_OVERHEAD;
      buffer.bytes += bytes;
      this.bufferedBytes += bytes;
    }
    if (buffer.bytes >= CHUNK_BYTES) this.write([[key, buffer]]);
  }

  /** Writes the buffers that are due (all with `force`), then keeps their organizations within bounds. */
  flush(force = true): void {
    const now = this.options.now();
    const due = [...this.buffers].filter(([, buffer]) => force || now - buffer.openedAt >= CHUNK_AGE_MS);
    if (due.length > 0) this.write(due);
  }

  private write(entries: [string, Buffer][]): void {
    const { db } = this.options;
    const touched = new Set<string>();
    db.transaction((tx) => {
      for (const [key, buffer] of entries) {
        const { slot } = buffer;
        const bytes = insertChunk(tx, {
          organizationId: slot.organizationId,
          serviceId: slot.serviceId,
          containerId: slot.containerRowId,
          ordinal: slot.ordinal,
          containerName: slot.containerName,
          lines: buffer.lines,
        });
        this.retained.set(slot.organizationId, this.retainedOf(tx, slot.organizationId) + bytes);
        touched.add(slot.organizationId);
        this.buffers.delete(key);
        this.bufferedBytes -= buffer.bytes;
      }
    });
    for (const organizationId of touched) this.enforce(organizationId, false);
  }

  private retainedOf(db: Queryable, organizationId: string): number {
    let bytes = this.retained.get(organizationId);
    if (bytes === undefined) this.retained.set(organizationId, (bytes = retainedBytes(db, organizationId)));
    return bytes;
  }

  /** Prunes the organization when over its size bound (and, with `age`, what is older than its age bound). */
  private enforce(organizationId: string, age: boolean): void {
    const { db, retention, now } = this.options;
    const bounds = retentionOf(db, organizationId, retention);
    if (this.retainedOf(db, organizationId) <= bounds.bytes && !age) return;
    // Read again: deletes of services or organizations cascade to history behind this count's back.
    const current = retainedBytes(db, organizationId);
    const target = current > bounds.bytes ? Math.floor(bounds.bytes * PRUNE_TO) : bounds.bytes;
    const freed = db.transaction((tx) => pruneOrganization(tx, organizationId, current, target, age ? now() - bounds.ageMs : 0));
    this.retained.set(organizationId, current - freed);
  }

  /** The age sweep (and a size check) over every organization holding history. */
  sweep(): void {
    this.flush(false);
    for (const organizationId of organizationsWithLogs(this.options.db)) this.enforce(organizationId, true);
  }

  /** Bytes of history retained by the organizations touched since start (for /metrics). */
  get retainedTotal(): number {
    let total = 0;
    for (const bytes of this.retained.values()) total += bytes;
    return total;
  }

  get buffered(): number {
    return this.bufferedBytes;
  }
}
