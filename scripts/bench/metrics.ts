/**
 * What sampling costs the daemon (issue 19: cgroups and /proc rather than cAdvisor), measured in
 * one run:
 *   bun scripts/bench/metrics.ts [--containers 200] [--passes 200]
 *
 * The agent's MetricsSampler takes `passes` samples of a made-up kernel tree (test/kernel.ts: the
 * host and `containers` containers on cgroup v2, the files the kernel would show) and encodes each
 * as the frame it sends. Baseline, in the same run on the same tree: reading every one of those
 * files and nothing else (the least any reader of the kernel's counters does). Printed: CPU time
 * and wall time per sample beside the baseline (the ratio is what parsing, rates and the frame
 * add), the share of one core this is at the idle (60 s) and watched (10 s) intervals, and the
 * heap before and after all passes (the sampler keeps one reading per container, nothing more).
 * Then one sample of this machine's own host figures, for scale. Not counted: the one Engine API
 * request a sample makes to list the running containers (inspecting only those it has not seen).
 * Nothing is asserted.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeFrame } from '../../src/contract/daemon-protocol.ts';
import type { KnownContainer } from '../../src/daemon/agent/containers.ts';
import { IDLE_INTERVAL_MS, MetricsSampler, WATCHED_INTERVAL_MS } from '../../src/daemon/agent/metrics-sampler.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { fakeKernel } from '../../test/kernel.ts';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!, process.argv[i + 1] ?? '');
const CONTAINERS = Number(args.get('--containers') ?? 200);
const PASSES = Number(args.get('--passes') ?? 200);
const ENVIRONMENT_ID = '01900000-0000-7000-8000-000000000001';

const kernel = fakeKernel(CONTAINERS);
const running: KnownContainer[] = kernel.containers.map(({ id, pid }, i) => ({
  slot: { containerId: id, name: `web-${i + 1}`, environmentId: ENVIRONMENT_ID, serviceId: '01900000-0000-7000-8000-000000000002', role: 'service', ordinal: i + 1 },
  project: `pn-${ENVIRONMENT_ID}`,
  tty: false,
  pid,
  networkMode: 'pn-net',
  startedAt: 0,
  running: true,
}));
const logger = createLogger('error', () => {});
let clock = 0;
const sampler = new MetricsSampler({
  directory: { running: async () => running },
  link: { ready: () => true, send: () => {} },
  logger,
  diskPath: async () => kernel.root,
  root: kernel.root,
  now: () => (clock += 10_000),
});

const scope = (id: string) => `/sys/fs/cgroup/system.slice/docker-${id}.scope`;
const FILES = [
  '/proc/self/mountinfo',
  '/proc/stat',
  '/proc/meminfo',
  '/proc/loadavg',
  ...kernel.containers.flatMap(({ id, pid }) => [`/proc/${pid}/cgroup`, `/proc/${pid}/net/dev`, ...['cpu.stat', 'memory.current', 'memory.max', 'memory.stat', 'io.stat'].map((file) => `${scope(id)}/${file}`)]),
];

interface Cost {
  cpuMs: number;
  wallMs: number;
}

/** CPU (user + system) and wall time per call of `work`, over PASSES calls after 10 warm-up calls. */
async function measure(work: () => Promise<unknown>): Promise<Cost> {
  for (let i = 0; i < 10; i++) await work();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < PASSES; i++) await work();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000 / PASSES, wallMs: wall / PASSES };
}

const heapMiB = () => {
  Bun.gc(true);
  return process.memoryUsage().heapUsed / 1024 / 1024;
};
const fixed = (value: number, digits = 2) => value.toFixed(digits);

const baseline = await measure(() => Promise.all(FILES.map((path) => readFile(join(kernel.root, path), 'utf8'))));
const heapBefore = heapMiB();
// The counters stay put during the passes (rewriting the tree is not the sampler's cost); the
// rates are then zero, which costs the same arithmetic.
const panel = await measure(async () => encodeFrame(await sampler.sample()));
const heapAfter = heapMiB();
const share = (cost: Cost, intervalMs: number) => `${fixed((cost.cpuMs / intervalMs) * 100, 3)} %`;

console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; a host and ${CONTAINERS} containers (cgroup v2, ${FILES.length} files a sample), ${PASSES} samples`);
console.log(`  read the files only  CPU ${fixed(baseline.cpuMs)} ms, wall ${fixed(baseline.wallMs)} ms per sample`);
console.log(`  MetricsSampler       CPU ${fixed(panel.cpuMs)} ms, wall ${fixed(panel.wallMs)} ms per sample (frame included)`);
console.log(`  sampler / baseline: CPU x${fixed(panel.cpuMs / baseline.cpuMs)}, wall x${fixed(panel.wallMs / baseline.wallMs)}`);
console.log(`  share of one core: ${share(panel, IDLE_INTERVAL_MS)} every ${IDLE_INTERVAL_MS / 1000} s (nobody watching), ${share(panel, WATCHED_INTERVAL_MS)} every ${WATCHED_INTERVAL_MS / 1000} s (watched)`);
console.log(`  heap ${fixed(heapBefore, 1)} MiB before the samples, ${fixed(heapAfter, 1)} MiB after ${PASSES + 10}`);

const host = new MetricsSampler({ directory: null, link: { ready: () => true, send: () => {} }, logger, diskPath: async () => '/' });
await host.sample();
const ownHost = await measure(() => host.sample());
console.log(`  this machine's /proc (host figures only): CPU ${fixed(ownHost.cpuMs)} ms, wall ${fixed(ownHost.wallMs)} ms per sample`);
kernel.remove();
