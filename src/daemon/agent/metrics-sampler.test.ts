/**
 * The daemon's sampler against a made-up kernel (test/kernel.ts): rates between two samples, none
 * made up for a first sample or a container without a network of its own, containers that went
 * away forgotten, and the interval the hub asks for (a shorter one samples at once).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import type { Frame } from '../../contract/daemon-protocol.ts';
import { createLogger } from '../../lib/logger.ts';
import { type FakeKernel, fakeKernel } from '../../../test/kernel.ts';
import type { KnownContainer } from './containers.ts';
import { IDLE_INTERVAL_MS, MetricsSampler, WATCHED_INTERVAL_MS } from './metrics-sampler.ts';

const ENVIRONMENT_ID = '01900000-0000-7000-8000-000000000001';
const SERVICE_ID = '01900000-0000-7000-8000-000000000002';
const kernels: FakeKernel[] = [];
afterEach(() => {
  for (const kernel of kernels.splice(0)) kernel.remove();
});

function setup(count: number, networkMode = 'pn-net') {
  const kernel = fakeKernel(count);
  kernels.push(kernel);
  let running: KnownContainer[] = kernel.containers.map(({ id, pid }, i) => ({
    slot: { containerId: id, name: `web-${i + 1}`, environmentId: ENVIRONMENT_ID, serviceId: SERVICE_ID, role: 'service', ordinal: i + 1 },
    project: `pn-${ENVIRONMENT_ID}`,
    tty: false,
    pid,
    networkMode,
    startedAt: 0,
    running: true,
  }));
  const sent: Frame[] = [];
  let onSend = () => {};
  let clock = 1_000_000;
  const sampler = new MetricsSampler({
    directory: { running: async () => running },
    link: { ready: () => true, send: (text) => (sent.push(JSON.parse(text)), onSend()) },
    logger: createLogger('error', () => {}),
    diskPath: async () => kernel.root,
    root: kernel.root,
    now: () => clock,
  });
  const later = (seconds: number) => {
    clock += seconds * 1000;
    kernel.advance(seconds);
  };
  const nextSend = () => new Promise<void>((resolve) => (onSend = resolve));
  const everyone = running;
  const runOnly = (ids: string[]) => (running = everyone.filter((row) => ids.includes(row.slot.containerId)));
  return { kernel, sampler, sent, later, nextSend, runOnly };
}

describe('MetricsSampler', () => {
  test('rates come from two samples: CPU in cores, network and block I/O in bytes per second; none for a first sample', async () => {
    const { sampler, later } = setup(2);
    const first = await sampler.sample();
    expect(first.host).toMatchObject({ cpu: null, memoryUsed: 1_000_000 * 1024, memoryTotal: 4_000_000 * 1024, load1: 0.5 });
    expect(first.host.diskTotal).toBeGreaterThan(0);
    expect(first.containers.map((sample) => [sample.ordinal, sample.cpu, sample.memory, sample.netRx])).toEqual([
      [1, null, 90_000_000, null],
      [2, null, 90_000_000, null],
    ]);
    later(10);
    const second = await sampler.sample();
    expect(second.host.cpu).toBeCloseTo(second.host.cpuCount / 2);
    expect(second.containers[0]).toMatchObject({ cpu: 0.5, memoryLimit: 512 * 1024 * 1024, netRx: 1_000_000, netTx: 1_000_000, blockRead: 1_000_000, blockWrite: 2_000_000 });
  });

  test('a container without a network of its own has no traffic: null, never the host figures', async () => {
    const { sampler, later } = setup(1, 'host');
    await sampler.sample();
    later(10);
    expect((await sampler.sample()).containers[0]).toMatchObject({ cpu: 0.5, netRx: null, netTx: null });
  });

  test('a container that went away is forgotten: when it is back its first sample has no rates again', async () => {
    const { sampler, later, runOnly, kernel } = setup(2);
    const [one, two] = kernel.containers.map((container) => container.id) as [string, string];
    await sampler.sample();
    runOnly([one]);
    later(10);
    expect((await sampler.sample()).containers.map((sample) => sample.containerId)).toEqual([one]);
    runOnly([one, two]);
    later(10);
    expect((await sampler.sample()).containers.map((sample) => [sample.containerId, sample.cpu])).toEqual([
      [one, 0.5],
      [two, null],
    ]);
  });

  test('samples at start and every minute; a watch for 10 s takes a sample at once', async () => {
    const { sampler, sent, nextSend } = setup(1);
    expect(sampler.interval).toBe(IDLE_INTERVAL_MS);
    const abort = new AbortController();
    const started = nextSend();
    sampler.start(abort.signal);
    await started;
    expect(sent.map((frame) => frame.type)).toEqual(['metrics']);
    const watched = nextSend();
    sampler.setInterval(WATCHED_INTERVAL_MS);
    await watched;
    expect(sampler.interval).toBe(WATCHED_INTERVAL_MS);
    expect(sent).toHaveLength(2);
    abort.abort();
  });
});
