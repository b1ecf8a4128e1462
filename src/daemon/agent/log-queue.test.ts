import { describe, expect, test } from 'bun:test';
import { type ContainerSlot, LogQueue, TokenBucket } from './log-queue.ts';

const slot = (containerId: string): ContainerSlot => ({
  containerId,
  name: `web-${containerId}`,
  environmentId: '0196a4f2-8e1c-7b3d-9f00-0000000000e1',
  serviceId: '0196a4f2-8e1c-7b3d-9f00-0000000000s1'.replace('s', 'a'),
  role: 'service',
  ordinal: 1,
});

describe('TokenBucket', () => {
  test('allows the burst at once, then the rate', () => {
    const bucket = new TokenBucket(10, 5, 0);
    expect(Array.from({ length: 8 }, () => bucket.take(0)).filter(Boolean)).toHaveLength(5);
    // One second later: ten more tokens, capped by the burst of five.
    expect(Array.from({ length: 8 }, () => bucket.take(1000)).filter(Boolean)).toHaveLength(5);
    expect(bucket.take(1050)).toBe(false);
    expect(bucket.take(1100)).toBe(true);
  });
});

describe('LogQueue', () => {
  const limits = { ratePerSecond: 100, burst: 100, maxLines: 10, maxBytes: 1_000_000, frameBytes: 200 };

  test('takes at most a frame of lines, oldest container first, and carries the dropped count once', () => {
    const queue = new LogQueue(limits);
    queue.drop(slot('a'), 3);
    for (let i = 0; i < 6; i++) queue.push(slot('a'), [i, 'stdout', `line ${i}`], `${i}.000000000`);
    queue.push(slot('b'), [9, 'stderr', 'other'], '9.000000000');
    const first = queue.take();
    // 32 bytes of overhead + 6 of text per line: the 200-byte frame holds five.
    expect(first.containers).toEqual([{ ...slot('a'), dropped: 3, lines: [0, 1, 2, 3, 4].map((i) => [i, 'stdout', `line ${i}`]) }]);
    expect(first.cursors.size).toBe(0);
    const second = queue.take();
    expect(second.containers.map((c) => [c.containerId, c.dropped, c.lines.length])).toEqual([
      ['a', undefined, 1],
      ['b', undefined, 1],
    ]);
    expect([...second.cursors]).toEqual([
      ['a', '5.000000000'],
      ['b', '9.000000000'],
    ]);
    expect(queue.isEmpty).toBe(true);
  });

  test('a full queue makes readers wait until the sender drained it below half', async () => {
    const queue = new LogQueue(limits);
    for (let i = 0; i < 10; i++) queue.push(slot('a'), [i, 'stdout', 'x'], `${i}.000000000`);
    expect(queue.full).toBe(true);
    let woken = false;
    const waiting = queue.waitForRoom(new AbortController().signal).then(() => (woken = true));
    await Promise.resolve();
    expect(woken).toBe(false);
    queue.take();
    await waiting;
    expect(woken).toBe(true);
  });

  test('an abort releases a waiting reader', async () => {
    const queue = new LogQueue(limits);
    for (let i = 0; i < 10; i++) queue.push(slot('a'), [i, 'stdout', 'x'], `${i}.000000000`);
    const controller = new AbortController();
    const waiting = queue.waitForRoom(controller.signal);
    controller.abort();
    await waiting;
    expect(queue.lines).toBe(10);
  });
});
