/**
 * Follows the log stream of every running Panel container through the Engine API and sends the
 * lines to the hub as `logs` frames (log-queue.ts bounds them). Each container is read from
 * where it was last sent (a cursor per container, kept in <stateDir>/log-cursors.json), so a
 * restart of the agent or of the container neither repeats nor skips lines; a container seen for
 * the first time is read from its start when it started moments ago (a deploy), otherwise from
 * its last INITIAL_TAIL lines.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from '../../lib/logger.ts';
import { type ContainerLines, encodeFrame, FrameError, type LogsFrame, type ObservabilityFeature } from '../../contract/daemon-protocol.ts';
import type { ContainerDirectory, KnownContainer } from './containers.ts';
import { type DockerEngine, EngineError } from './engine.ts';
import { writePrivateFile } from './identity.ts';
import { DEFAULT_LOG_LIMITS, type LogLimits, LogQueue, TokenBucket } from './log-queue.ts';
import { compareCursors, LogStreamParser } from './log-stream.ts';

/** Lines read from a container first seen after it had been running a while. */
export const INITIAL_TAIL = 1_000;
/** A container that started less than this ago is read from its first line. */
const FRESH_START_MS = 120_000;
const FLUSH_INTERVAL_MS = 200;
const CURSOR_WRITE_INTERVAL_MS = 10_000;
const MAX_CURSORS = 5_000;

/** What the collector needs of the connection to the hub. */
export interface FrameLink {
  /** True while a welcomed connection that takes `feature` can take more now (its buffer is not backed up). */
  ready(feature: ObservabilityFeature | 'report'): boolean;
  send(text: string): void;
}

export interface LogCollectorOptions {
  engine: DockerEngine;
  directory: ContainerDirectory;
  link: FrameLink;
  logger: Logger;
  /** Where the cursors are kept; null keeps them in memory only. */
  cursorFile: string | null;
  limits?: LogLimits;
  now?: () => number;
}

/** `logs` frames for `containers`, split in halves until each encodes within the frame limit. */
export function encodeLogFrames(containers: ContainerLines[]): string[] {
  try {
    return [encodeFrame({ type: 'logs', containers } satisfies LogsFrame)];
  } catch (error) {
    if (!(error instanceof FrameError)) throw error;
    const lines = containers.flatMap((container) => container.lines.map((line) => ({ container, line })));
    if (lines.length <= 1) return [];
    const half = (part: typeof lines) => {
      const byContainer = new Map<ContainerLines, ContainerLines>();
      for (const { container, line } of part) {
        let copy = byContainer.get(container);
        if (!copy) byContainer.set(container, (copy = { ...container, lines: [] }));
        copy.lines.push(line);
      }
      return [...byContainer.values()];
    };
    const middle = Math.floor(lines.length / 2);
    return [...encodeLogFrames(half(lines.slice(0, middle))), ...encodeLogFrames(half(lines.slice(middle)).map(({ dropped: _, ...rest }) => rest))];
  }
}

export class LogCollector {
  readonly queue: LogQueue;
  private readonly following = new Map<string, AbortController>();
  /** Cursors of what was sent (a restart resumes after them). */
  private readonly sent = new Map<string, string>();
  private cursorsChanged = false;
  private readonly now: () => number;

  constructor(private readonly options: LogCollectorOptions) {
    this.queue = new LogQueue(options.limits ?? DEFAULT_LOG_LIMITS);
    this.now = options.now ?? Date.now;
  }

  async loadCursors(): Promise<void> {
    if (!this.options.cursorFile) return;
    try {
      const stored = JSON.parse(await readFile(this.options.cursorFile, 'utf8')) as Record<string, unknown>;
      for (const [id, cursor] of Object.entries(stored)) if (typeof cursor === 'string' && /^\d+\.\d{9}$/.test(cursor)) this.sent.set(id, cursor);
    } catch {
      // none yet
    }
  }

  /** Follows every running container not followed yet. */
  async sync(signal: AbortSignal): Promise<void> {
    for (const container of await this.options.directory.running()) this.follow(container, signal);
  }

  /** Starts following `container` unless it already is. */
  follow(container: KnownContainer, signal: AbortSignal): void {
    const id = container.slot.containerId;
    if (this.following.has(id) || signal.aborted) return;
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    this.following.set(id, controller);
    void this.read(container, controller.signal)
      .catch((error) => {
        if (!controller.signal.aborted && !(error instanceof EngineError && error.status === 404)) {
          this.options.logger.warn('cannot read a container log', { container: container.slot.name, error: (error as Error).message });
        }
      })
      .finally(() => {
        signal.removeEventListener('abort', stop);
        if (this.following.get(id) === controller) this.following.delete(id);
      });
  }

  /** The container is gone for good: stop reading and forget its cursor. */
  forget(id: string): void {
    this.following.get(id)?.abort();
    this.following.delete(id);
    if (this.sent.delete(id)) this.cursorsChanged = true;
  }

  get followed(): number {
    return this.following.size;
  }

  private async read(container: KnownContainer, signal: AbortSignal): Promise<void> {
    const { slot } = container;
    const resumeAfter = this.sent.get(slot.containerId);
    const from = resumeAfter
      ? { since: resumeAfter }
      : { tail: this.now() - container.startedAt < FRESH_START_MS ? ('all' as const) : INITIAL_TAIL };
    const stream = await this.options.engine.logs(slot.containerId, from, signal);
    const parser = new LogStreamParser(container.tty);
    const bucket = new TokenBucket(this.queue.limits.ratePerSecond, this.queue.limits.burst, this.now());
    let last = resumeAfter ?? null;
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      for (const line of parser.push(chunk)) {
        // `since` includes lines of the very same nanosecond: skip what was sent already.
        if (last !== null && compareCursors(line.cursor, last) <= 0) continue;
        last = line.cursor;
        if (bucket.take(this.now())) this.queue.push(slot, [line.at, line.stream, line.text], line.cursor);
        else this.queue.drop(slot);
      }
      if (this.queue.full) await this.queue.waitForRoom(signal);
      if (signal.aborted) return;
    }
  }

  /** Sends what is queued while the hub takes it; answers the number of frames sent. */
  flush(): number {
    let frames = 0;
    while (!this.queue.isEmpty && this.options.link.ready('logs')) {
      const { containers, cursors } = this.queue.take();
      for (const text of encodeLogFrames(containers)) {
        this.options.link.send(text);
        frames++;
      }
      for (const [id, cursor] of cursors) this.sent.set(id, cursor);
      if (cursors.size > 0) this.cursorsChanged = true;
    }
    return frames;
  }

  async writeCursors(): Promise<void> {
    if (!this.cursorsChanged || !this.options.cursorFile) return;
    this.cursorsChanged = false;
    // The newest entries win when there are too many (a container not seen for long is gone).
    const entries = [...this.sent].slice(-MAX_CURSORS);
    await writePrivateFile(this.options.cursorFile, JSON.stringify(Object.fromEntries(entries)));
  }

  /** Flushes on a timer and writes cursors now and then, until `signal` aborts. */
  start(signal: AbortSignal): void {
    const flush = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
    const cursors = setInterval(() => void this.writeCursors().catch(() => undefined), CURSOR_WRITE_INTERVAL_MS);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(flush);
        clearInterval(cursors);
        void this.writeCursors().catch(() => undefined);
      },
      { once: true },
    );
  }
}
