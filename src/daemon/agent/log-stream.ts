/**
 * Reading the Engine API's log stream (`/containers/{id}/logs?timestamps=1`). Without a TTY the
 * stream is multiplexed: frames of [stream byte, 0, 0, 0, size as 4 bytes big-endian] + payload,
 * one log message per frame. With a TTY it is raw stdout. Every line starts with its
 * RFC 3339 timestamp (nanoseconds) and a space.
 */
import { type LogStream, MAX_LINE_LENGTH } from '../../contract/daemon-protocol.ts';

export interface ParsedLine {
  /** Epoch milliseconds. */
  at: number;
  /** The engine's timestamp as `<epoch seconds>.<nanoseconds>`: the resume cursor (`since`). */
  cursor: string;
  stream: LogStream;
  text: string;
}

const HEADER_BYTES = 8;
const STREAMS: Record<number, LogStream> = { 1: 'stdout', 2: 'stderr' };
const TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) /;

/** "2026-01-01T00:00:01.5Z text" -> at, cursor and text; null when the line carries no timestamp. */
export function splitTimestamp(line: string): { at: number; cursor: string; text: string } | null {
  const match = TIMESTAMP.exec(line);
  if (!match) return null;
  const seconds = Date.parse(`${match[1]}${match[3]}`) / 1000;
  if (!Number.isFinite(seconds)) return null;
  const nanos = (match[2] ?? '').padEnd(9, '0');
  return { at: seconds * 1000 + Math.floor(Number(nanos) / 1e6), cursor: `${seconds}.${nanos}`, text: line.slice(match[0].length) };
}

/** Orders two cursors (equal-length nanosecond parts compare as numbers). */
export function compareCursors(a: string, b: string): number {
  const [aSeconds, aNanos] = a.split('.') as [string, string];
  const [bSeconds, bNanos] = b.split('.') as [string, string];
  return Number(aSeconds) - Number(bSeconds) || Number(aNanos) - Number(bNanos);
}

/** A cut line keeps its start and says it was cut. */
export function capLine(text: string): string {
  return text.length > MAX_LINE_LENGTH ? `${text.slice(0, MAX_LINE_LENGTH - 12)} [truncated]` : text;
}

/**
 * Feeds chunks of one log stream and answers the complete lines in them. A TTY stream may split
 * a line between chunks: the rest is kept (at most one line's worth) until its line break.
 */
export class LogStreamParser {
  private bytes = new Uint8Array(0);
  private ttyText = '';
  private readonly decoder = new TextDecoder();

  constructor(private readonly tty: boolean) {}

  push(chunk: Uint8Array): ParsedLine[] {
    if (this.tty) return this.pushRaw(chunk);
    const lines: ParsedLine[] = [];
    const buffer = this.bytes.length === 0 ? chunk : concat(this.bytes, chunk);
    let offset = 0;
    while (buffer.length - offset >= HEADER_BYTES) {
      const size = new DataView(buffer.buffer, buffer.byteOffset + offset + 4, 4).getUint32(0);
      if (buffer.length - offset - HEADER_BYTES < size) break;
      const stream = STREAMS[buffer[offset]!] ?? 'stdout';
      const payload = this.decoder.decode(buffer.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + size));
      offset += HEADER_BYTES + size;
      for (const line of payload.split('\n')) if (line !== '') this.collect(lines, line, stream);
    }
    this.bytes = buffer.slice(offset);
    return lines;
  }

  private pushRaw(chunk: Uint8Array): ParsedLine[] {
    const lines: ParsedLine[] = [];
    const parts = (this.ttyText + this.decoder.decode(chunk, { stream: true })).split('\n');
    this.ttyText = parts.pop()!;
    for (const part of parts) this.collect(lines, part.replace(/\r$/, ''), 'stdout');
    // A line with no break for this long is sent as it is rather than grown without bound.
    if (this.ttyText.length > MAX_LINE_LENGTH + 64) {
      this.collect(lines, this.ttyText, 'stdout');
      this.ttyText = '';
    }
    return lines;
  }

  private collect(lines: ParsedLine[], raw: string, stream: LogStream): void {
    const stamped = splitTimestamp(raw);
    if (stamped) lines.push({ ...stamped, stream, text: capLine(stamped.text) });
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
