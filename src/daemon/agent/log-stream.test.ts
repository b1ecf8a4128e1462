import { describe, expect, test } from 'bun:test';
import { MAX_LINE_LENGTH } from '../../contract/daemon-protocol.ts';
import { compareCursors, LogStreamParser, splitTimestamp } from './log-stream.ts';

/** One multiplexed frame as the Engine API sends it without a TTY. */
function frame(stream: 1 | 2, text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const bytes = new Uint8Array(8 + payload.length);
  bytes[0] = stream;
  new DataView(bytes.buffer).setUint32(4, payload.length);
  bytes.set(payload, 8);
  return bytes;
}

describe('splitTimestamp', () => {
  test('reads nanosecond timestamps into milliseconds and a resume cursor', () => {
    expect(splitTimestamp('2026-01-01T00:00:01.123456789Z hello world')).toEqual({ at: Date.parse('2026-01-01T00:00:01.123Z'), cursor: `${Date.parse('2026-01-01T00:00:01Z') / 1000}.123456789`, text: 'hello world' });
  });

  test('pads a shortened fraction and keeps an empty text', () => {
    expect(splitTimestamp('2026-01-01T00:00:01.5Z ')).toMatchObject({ at: Date.parse('2026-01-01T00:00:01.500Z'), text: '' });
    expect(splitTimestamp('2026-01-01T00:00:01.5Z ')!.cursor.endsWith('.500000000')).toBe(true);
  });

  test('a line without a timestamp is not a log line', () => {
    expect(splitTimestamp('no time here')).toBeNull();
  });

  test('cursors order by seconds, then nanoseconds', () => {
    expect(compareCursors('10.000000002', '10.000000001')).toBeGreaterThan(0);
    expect(compareCursors('9.999999999', '10.000000000')).toBeLessThan(0);
    expect(compareCursors('10.000000001', '10.000000001')).toBe(0);
  });
});

describe('LogStreamParser', () => {
  test('multiplexed frames give each line its stream, whatever the chunk boundaries', () => {
    const bytes = new Uint8Array([
      ...frame(1, '2026-01-01T00:00:01.000000000Z out one\n'),
      ...frame(2, '2026-01-01T00:00:02.000000000Z err two\n2026-01-01T00:00:03.000000000Z err three\n'),
    ]);
    const parser = new LogStreamParser(false);
    const lines = [bytes.subarray(0, 5), bytes.subarray(5, 50), bytes.subarray(50)].flatMap((chunk) => parser.push(chunk));
    expect(lines.map((line) => [line.stream, line.text])).toEqual([
      ['stdout', 'out one'],
      ['stderr', 'err two'],
      ['stderr', 'err three'],
    ]);
  });

  test('a TTY stream keeps a line split between chunks until its break', () => {
    const parser = new LogStreamParser(true);
    expect(parser.push(new TextEncoder().encode('2026-01-01T00:00:01.000000000Z hal'))).toEqual([]);
    expect(parser.push(new TextEncoder().encode('f a line\r\n')).map((line) => line.text)).toEqual(['half a line']);
  });

  test('a line longer than the protocol allows is cut and marked', () => {
    const parser = new LogStreamParser(false);
    const [line] = parser.push(frame(1, `2026-01-01T00:00:01.000000000Z ${'x'.repeat(MAX_LINE_LENGTH + 100)}\n`));
    expect(line!.text.length).toBeLessThanOrEqual(MAX_LINE_LENGTH);
    expect(line!.text.endsWith('[truncated]')).toBe(true);
  });

  test('a TTY line that never ends is sent once it is too long, not kept growing', () => {
    const parser = new LogStreamParser(true);
    const lines = parser.push(new TextEncoder().encode(`2026-01-01T00:00:01.000000000Z ${'y'.repeat(MAX_LINE_LENGTH + 200)}`));
    expect(lines).toHaveLength(1);
  });
});
