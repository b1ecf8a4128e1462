/**
 * Does a flood of deeply nested JSON bodies move /api/health? Measured in one run:
 *   bun scripts/bench/deep-json.ts
 *
 * A child process runs the real `panel serve` (file database in a temporary directory, a free
 * port on 127.0.0.1). This thread probes GET /api/health one request at a time and records each
 * latency; a Worker floods, FLOOD_RATE requests a second (BENCH_FLOOD_RATE, default 200) over
 * FLOOD_CONCURRENCY connections, the unauthenticated routes
 * the security review named (POST /api/daemon/v1/enroll and /api/client/v1/auth/sign-in) with
 * 20 KB bodies nested 10 000 deep (the review's case: 3-10 s of blocked event loop each) and
 * 200 KB bodies nested 100 000 deep (they answered 500). Before the depth cap a single such body
 * held the event loop for seconds, so any rate at all stalled /api/health. Rounds interleave three
 * conditions: quiet, the deep flood, and a control flood of as many tiny refused bodies (`{}`),
 * which shows what any refused request costs at that rate. Printed: the health p99 of each, and
 * the ratio to quiet; target for the deep flood at most 1.5.
 * Nothing is asserted. Tests never time (ARCHITECTURE.md §7).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = 5;
const ROUND_MS = 1_000;
const WARMUP_MS = 500;
const FLOOD_CONCURRENCY = 4;
/** Deep bodies per second, spread over the loops (about 20 MB/s of them). */
const FLOOD_RATE = Number(process.env.BENCH_FLOOD_RATE ?? 100);
const TARGET_RATIO = 1.5;
const MAIN = join(import.meta.dir, '../../src/main.ts');

const DEEP_BODIES = [
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  `{"token":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
];
/** The control flood: as many refused bodies, just not deep ones. */
const SHALLOW_BODIES = ['{}'];
const FLOODED_PATHS = ['/api/daemon/v1/enroll', '/api/client/v1/auth/sign-in'];

interface FloodReport {
  requests: number;
  statuses: Record<string, number>;
}

/** The Worker: floods until told to stop, then reports what the server answered. */
function floodWorker(): void {
  let running = false;
  const report: FloodReport = { requests: 0, statuses: {} };
  // The base is also the public origin the sign-in route checks (PANEL_PUBLIC_URL's default).
  const loop = async (base: string, bodies: string[], offset: number) => {
    const interval = (1000 * FLOOD_CONCURRENCY) / FLOOD_RATE;
    let slot = performance.now();
    for (let i = offset; running; i++) {
      // Paced: one request per slot; a slow answer delays the next one (no catch-up burst).
      const wait = slot - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      slot = Math.max(slot, performance.now()) + interval;
      const res = await fetch(`${base}${FLOODED_PATHS[i % FLOODED_PATHS.length]}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: bodies[i % bodies.length],
      });
      await res.arrayBuffer();
      report.requests++;
      report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
    }
  };
  let loops: Promise<void>[] = [];
  self.onmessage = async (event: MessageEvent<{ start?: string; bodies?: string[]; stop?: true }>) => {
    if (event.data.start) {
      running = true;
      report.requests = 0;
      report.statuses = {};
      loops = Array.from({ length: FLOOD_CONCURRENCY }, (_, k) => loop(event.data.start!, event.data.bodies!, k));
      postMessage('flooding');
    } else if (event.data.stop) {
      running = false;
      await Promise.all(loops);
      postMessage(report);
    }
  };
}

function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** Sequential GET /api/health for `ms` milliseconds: every latency, in ms. */
async function probeHealth(base: string, ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const started = Bun.nanoseconds();
    const res = await fetch(`${base}/api/health`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/api/health answered ${res.status}`);
    latencies.push((Bun.nanoseconds() - started) / 1e6);
  }
  return latencies;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
};
const format = (value: number, digits = 2) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-bench-deep-json-'));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const { generateKeyRingText } = await import('../../src/crypto/keyring.ts');
  const server = Bun.spawn([process.execPath, MAIN, 'serve'], {
    env: { ...process.env, PANEL_DATA_DIR: dataDir, PANEL_PORT: String(port), PANEL_SECRETS: generateKeyRingText(), PANEL_LOG_LEVEL: 'error' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  const flood = new Worker(import.meta.path);
  const ask = <T>(message: object) =>
    new Promise<T>((resolve) => {
      flood.onmessage = (event: MessageEvent<T>) => resolve(event.data);
      flood.postMessage(message);
    });
  try {
    for (let attempt = 0; ; attempt++) {
      const up = await fetch(`${base}/api/health`).then((res) => res.ok, () => false);
      if (up) break;
      if (attempt > 200) throw new Error('panel serve did not come up');
      await Bun.sleep(50);
    }
    console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; panel serve in a child process on ${base}`);
    await probeHealth(base, WARMUP_MS);

    const conditions = [
      { name: 'quiet (baseline)', bodies: null, latencies: [] as number[], reports: [] as FloodReport[] },
      { name: 'deep-JSON flood', bodies: DEEP_BODIES, latencies: [] as number[], reports: [] as FloodReport[] },
      { name: 'shallow flood (control)', bodies: SHALLOW_BODIES, latencies: [] as number[], reports: [] as FloodReport[] },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const condition of conditions) {
        if (condition.bodies) await ask<string>({ start: base, bodies: condition.bodies });
        condition.latencies.push(...(await probeHealth(base, ROUND_MS)));
        if (condition.bodies) condition.reports.push(await ask<FloodReport>({ stop: true }));
      }
    }

    console.log(`floods: ${FLOOD_RATE} bodies/s over ${FLOOD_CONCURRENCY} connections to ${FLOODED_PATHS.join(' and ')}`);
    console.log(`${ROUNDS} interleaved rounds of ${ROUND_MS} ms of sequential GET /api/health per condition\n`);
    console.log(`${'condition'.padEnd(24)} ${'probes'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'ratio'.padStart(6)}   flood answers`);
    const quietP99 = percentile(conditions[0]!.latencies, 0.99);
    for (const { name, latencies, reports } of conditions) {
      const statuses: Record<string, number> = {};
      for (const report of reports) for (const [status, n] of Object.entries(report.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
      const p99 = percentile(latencies, 0.99);
      const answers = reports.length > 0 ? JSON.stringify(statuses) : '';
      console.log(`${name.padEnd(24)} ${String(latencies.length).padStart(7)} ${format(percentile(latencies, 0.5)).padStart(8)} ${format(p99).padStart(8)} ${format(p99 / quietP99).padStart(6)}   ${answers}`);
    }
    const ratio = percentile(conditions[1]!.latencies, 0.99) / quietP99;
    console.log(`\nhealth p99 during the deep-JSON flood / quiet: ${format(ratio)} (${ratio <= TARGET_RATIO ? 'within' : 'OVER'} the ${TARGET_RATIO} target)`);
  } finally {
    flood.terminate();
    server.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (Bun.isMainThread) await main();
else floodWorker();
