/**
 * The output of one running command (its deploy log), sent to the hub as `output` frames while
 * it runs. Bounded: the first HEAD_LINES lines are sent as they come, after that only the last
 * TAIL_LINES are kept and sent when the command ends, with the count of lines left out between
 * (what explains a failure is nearly always at the start or at the end). Lines wait while the
 * hub cannot take them; `finish` sends what is left, just before the command's result.
 */
import { encodeFrame, type Line, type LogStream, type OutputFrame } from '../../contract/daemon-protocol.ts';
import type { FrameLink } from './log-collector.ts';
import { capLine } from './log-stream.ts';

export const HEAD_LINES = 2_000;
export const TAIL_LINES = 1_000;
const FLUSH_DELAY_MS = 200;
/** Text per frame: even escaped six-fold in JSON (control characters) it stays under the frame limit. */
const FRAME_BYTES = 24 * 1024;

export class CommandOutput {
  private readonly unsent: Line[] = [];
  private tail: Line[] = [];
  private lines = 0;
  private omitted = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private finished = false;

  /** `link` null: the command runs outside a connection and its lines go nowhere (none is kept). */
  constructor(
    private readonly commandId: string,
    private readonly link: FrameLink | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** One line of output (without its line break). */
  line(stream: LogStream, text: string): void {
    if (this.finished || !this.link) return;
    const line: Line = [this.now(), stream, capLine(text)];
    if (this.lines++ < HEAD_LINES) {
      this.unsent.push(line);
      this.timer ??= setTimeout(() => this.flush(), FLUSH_DELAY_MS);
      return;
    }
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) {
      this.tail.shift();
      this.omitted++;
    }
  }

  /** A step of Panel's own (shown as `▸ text`). */
  step(text: string): void {
    this.line('stdout', `▸ ${text}`);
  }

  private flush(omitted = 0): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.link?.ready('output')) {
      // Kept for later (at most HEAD_LINES); retried while the command runs.
      if (!this.finished && this.unsent.length > 0) this.timer = setTimeout(() => this.flush(), FLUSH_DELAY_MS);
      return;
    }
    let first = true;
    while (this.unsent.length > 0 || (first && omitted > 0)) {
      let bytes = 0;
      let count = 0;
      while (count < this.unsent.length && (count === 0 || bytes + this.unsent[count]![2].length < FRAME_BYTES)) bytes += this.unsent[count++]![2].length + 32;
      const frame: OutputFrame = { type: 'output', commandId: this.commandId, lines: this.unsent.splice(0, count), ...(first && omitted > 0 ? { omitted } : {}) };
      this.link.send(encodeFrame(frame));
      first = false;
    }
  }

  /** Sends everything left: the head not sent yet, then the kept tail with the count left out. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.flush();
    if (this.tail.length === 0) return;
    this.unsent.push(...this.tail);
    this.tail = [];
    this.flush(this.omitted);
  }
}
