/**
 * Log lines on their way to the hub, bounded so a fast container or a slow (or absent) control
 * plane never grows the agent's memory:
 *
 * - sampling: each container has a token bucket (`ratePerSecond` sustained, `burst` at once);
 *   lines beyond it are dropped and counted, and the count travels with the container's next
 *   lines (`dropped`), so the control plane shows a marker where they were;
 * - backpressure: the queue holds at most `maxLines` lines / `maxBytes` bytes over all
 *   containers; a reader finding it full waits (the engine keeps the lines in its log file)
 *   until the sender has drained it below half.
 */
import type { ContainerLines, Line } from '../../contract/daemon-protocol.ts';

export interface LogLimits {
  ratePerSecond: number;
  burst: number;
  maxLines: number;
  maxBytes: number;
  /** Largest `logs` frame the sender builds, in bytes of line text (the frame limit is 256 KiB). */
  frameBytes: number;
}

export const DEFAULT_LOG_LIMITS: LogLimits = {
  ratePerSecond: 200,
  burst: 2_000,
  maxLines: 20_000,
  maxBytes: 8 * 1024 * 1024,
  frameBytes: 160 * 1024,
};

/** Per-line overhead counted besides its text (tuple, timestamp, stream). */
const LINE_OVERHEAD = 32;

export type ContainerSlot = Omit<ContainerLines, 'lines' | 'dropped'>;

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

interface Pending {
  slot: ContainerSlot;
  lines: Line[];
  dropped: number;
  /** Resume cursor of the newest line queued. */
  cursor: string | null;
}

export class LogQueue {
  private readonly pending = new Map<string, Pending>();
  private lineCount = 0;
  private byteCount = 0;
  private roomWaiters: (() => void)[] = [];

  constructor(readonly limits: LogLimits = DEFAULT_LOG_LIMITS) {}

  get lines(): number {
    return this.lineCount;
  }

  get bytes(): number {
    return this.byteCount;
  }

  get full(): boolean {
    return this.lineCount >= this.limits.maxLines || this.byteCount >= this.limits.maxBytes;
  }

  private entry(slot: ContainerSlot): Pending {
    let entry = this.pending.get(slot.containerId);
    if (!entry) this.pending.set(slot.containerId, (entry = { slot, lines: [], dropped: 0, cursor: null }));
    return entry;
  }

  push(slot: ContainerSlot, line: Line, cursor: string): void {
    const entry = this.entry(slot);
    entry.lines.push(line);
    entry.cursor = cursor;
    this.lineCount++;
    this.byteCount += line[2].length + LINE_OVERHEAD;
  }

  /** Lines sampled away: reported with the container's next frame. */
  drop(slot: ContainerSlot, count = 1): void {
    this.entry(slot).dropped += count;
  }

  /** Resolves once the queue is below half its bounds (or `signal` aborts). */
  waitForRoom(signal: AbortSignal): Promise<void> {
    if (!this.full) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.roomWaiters.push(done);
    });
  }

  get isEmpty(): boolean {
    return this.pending.size === 0;
  }

  /**
   * Takes up to `limits.frameBytes` of lines, oldest containers first, as one frame's worth; each
   * container's `cursor` says how far its lines now reach.
   */
  take(): { containers: ContainerLines[]; cursors: Map<string, string> } {
    const containers: ContainerLines[] = [];
    const cursors = new Map<string, string>();
    let budget = this.limits.frameBytes;
    for (const [id, entry] of this.pending) {
      let count = 0;
      let bytes = 0;
      // A line always fits into an empty frame (a line is far below the frame limit).
      const fits = (size: number) => bytes + size <= budget || (containers.length === 0 && count === 0);
      while (count < entry.lines.length && fits(entry.lines[count]![2].length + LINE_OVERHEAD)) {
        bytes += entry.lines[count]![2].length + LINE_OVERHEAD;
        count++;
      }
      if (count === 0 && entry.lines.length > 0) break;
      const lines = entry.lines.splice(0, count);
      containers.push({ ...entry.slot, ...(entry.dropped > 0 ? { dropped: entry.dropped } : {}), lines });
      entry.dropped = 0;
      this.lineCount -= count;
      this.byteCount -= bytes;
      budget -= bytes;
      if (entry.lines.length === 0) {
        if (entry.cursor) cursors.set(id, entry.cursor);
        this.pending.delete(id);
      }
    }
    if (this.lineCount < this.limits.maxLines / 2 && this.byteCount < this.limits.maxBytes / 2) {
      for (const wake of this.roomWaiters.splice(0)) wake();
    }
    return { containers, cursors };
  }
}
