import { afterEach, describe, expect, jest, test } from 'bun:test';
import { type Frame, parseFrame } from '../../contract/daemon-protocol.ts';
import { CommandOutput, HEAD_LINES, TAIL_LINES } from './command-output.ts';
import type { FrameLink } from './log-collector.ts';

function link(ready = true) {
  const frames: Extract<Frame, { type: 'output' }>[] = [];
  const value: FrameLink & { ready: (feature: string) => boolean } = {
    ready: () => ready,
    send: (text) => void frames.push(parseFrame(text) as Extract<Frame, { type: 'output' }>),
  };
  return { link: value, frames, setReady: (next: boolean) => void (ready = next) };
}

describe('CommandOutput', () => {
  afterEach(() => void jest.useRealTimers());

  test('sends every line of a short output, steps marked, before finish returns', () => {
    const { link: sink, frames } = link();
    const output = new CommandOutput('cmd-1', sink, () => 42);
    output.step('Pulling');
    output.line('stderr', 'pull access denied for nope/nope');
    output.finish();
    expect(frames.flatMap((frame) => frame.lines)).toEqual([
      [42, 'stdout', '▸ Pulling'],
      [42, 'stderr', 'pull access denied for nope/nope'],
    ]);
    expect(frames.every((frame) => frame.commandId === 'cmd-1')).toBe(true);
  });

  test('a long output keeps its head and its tail, and says how many lines were left out', () => {
    const { link: sink, frames } = link();
    const output = new CommandOutput('cmd-2', sink);
    const total = HEAD_LINES + TAIL_LINES + 500;
    for (let i = 0; i < total; i++) output.line('stdout', `line ${i}`);
    output.finish();
    const lines = frames.flatMap((frame) => frame.lines.map((line) => line[2]));
    expect(lines).toHaveLength(HEAD_LINES + TAIL_LINES);
    expect(lines[0]).toBe('line 0');
    expect(lines[HEAD_LINES - 1]).toBe(`line ${HEAD_LINES - 1}`);
    expect(lines[HEAD_LINES]).toBe(`line ${HEAD_LINES + 500}`);
    expect(lines.at(-1)).toBe(`line ${total - 1}`);
    expect(frames.find((frame) => frame.omitted)?.omitted).toBe(500);
  });

  test('lines wait while the hub cannot take them and go at finish', () => {
    const { link: sink, frames, setReady } = link(false);
    const output = new CommandOutput('cmd-3', sink);
    output.line('stdout', 'queued');
    setReady(true);
    output.finish();
    expect(frames.flatMap((frame) => frame.lines.map((line) => line[2]))).toEqual(['queued']);
  });

  test('without a link (a command run outside a connection) nothing is kept and no retry is scheduled', () => {
    // A retry timer that re-armed itself forever kept `panel daemon run` from exiting on SIGTERM.
    jest.useFakeTimers();
    const output = new CommandOutput('cmd-4', null);
    output.step('Pulling');
    output.line('stdout', 'a line for nobody');
    expect(jest.getTimerCount()).toBe(0);
  });

  test('a finished output leaves no timer behind, even when the hub never took its lines', () => {
    jest.useFakeTimers();
    const { link: sink, frames } = link(false);
    const output = new CommandOutput('cmd-5', sink);
    output.line('stdout', 'never sent');
    jest.advanceTimersByTime(1_000);
    output.finish();
    expect(jest.getTimerCount()).toBe(0);
    expect(frames).toEqual([]);
  });
});
