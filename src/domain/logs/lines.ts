/**
 * A log line as stored and answered. In a chunk body (log_chunk.body) each line is a JSON tuple
 * [epoch ms, stream code, text]; the codes keep the body small.
 */
export const LINE_STREAMS = ['stdout', 'stderr', 'panel'] as const;
/** `panel`: a marker of Panel's own, such as the count of lines sampling dropped. */
export type LineStream = (typeof LINE_STREAMS)[number];

export type StoredLine = [at: number, stream: 0 | 1 | 2, text: string];

export const streamCode = (stream: LineStream): 0 | 1 | 2 => (stream === 'stdout' ? 0 : stream === 'stderr' ? 1 : 2);
export const streamOf = (code: number): LineStream => LINE_STREAMS[code] ?? 'stdout';

/** Which container a line came from. */
export interface LineSource {
  serviceId: string;
  /** The container row (null when it was deleted since). */
  containerId: string | null;
  ordinal: number;
  containerName: string;
}

export interface LogLine extends LineSource {
  at: number;
  stream: LineStream;
  text: string;
}

/** The marker stored where a daemon dropped lines (rate or queue limit). */
export const droppedMarker = (count: number) =>
  `[panel] ${count} line${count === 1 ? '' : 's'} dropped here: the container logged faster than Panel keeps (sampled), or the control plane was unreachable for long`;

/** The marker stored where a long command output was cut (its start and end are kept). */
export const omittedMarker = (count: number) => `[panel] ${count} line${count === 1 ? '' : 's'} of output left out here (a long output keeps its start and its end)`;

export function encodeBody(lines: readonly StoredLine[]): string {
  return JSON.stringify(lines);
}

export function decodeBody(body: string): StoredLine[] {
  return JSON.parse(body) as StoredLine[];
}
