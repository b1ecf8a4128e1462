/**
 * Startup and memory benchmark, each figure beside a bare Bun server (same runtime, one route)
 * measured in the same run, so the ratio is what Panel itself adds on this (noisy) machine:
 *   bun scripts/bench/startup.ts [path/to/panel]
 *
 * - cold start: spawn to the first 200 (Panel: GET /api/health), 10 starts, median and range;
 *   beside it the CPU time the process (all its threads) had used by then, which a busy machine
 *   disturbs far less than the wall time;
 * - idle RSS after install: the install completed over HTTP, then 2 s idle;
 * - RSS under light traffic: 20 requests a second for 5 s from another process (console page,
 *   readiness, an authenticated list), then the RSS at the end.
 * Goals (issue 20): start <= 60 ms, idle after install <= 40 MB, light traffic <= 60 MB.
 * Nothing is asserted; it prints. Tests never time (ARCHITECTURE.md §7).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const STARTS = 10;
const IDLE_MS = 2000;
const LIGHT_TRAFFIC = { perSecond: 20, seconds: 5 };
const GOALS = { startMs: 60, installedMiB: 40, lightTrafficMiB: 60 };
const work = mkdtempSync(join(tmpdir(), 'panel-bench-startup-'));
const root = join(import.meta.dir, '..', '..');
const ring = `bench:${Buffer.alloc(32, 9).toString('base64')}`;

function build(): string {
  const given = process.argv[2];
  if (given) return given;
  const out = join(work, 'panel');
  const result = Bun.spawnSync([process.execPath, join(root, 'scripts', 'build.ts'), out], { stdout: 'ignore', stderr: 'inherit' });
  if (result.exitCode !== 0) throw new Error('build failed');
  return out;
}

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

async function untilHealthy(url: string, child: { exitCode: number | null }): Promise<void> {
  for (let attempt = 0; attempt < 20_000; attempt++) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before answering`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(1);
  }
  throw new Error('never became healthy');
}

/** CPU time of every thread of the process so far (schedstat: nanoseconds on a CPU). */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024;
}

/** Paced GETs from a child process (the load must not live in the measured process, nor in this one's event loop timing). */
async function lightTraffic(urls: string[], headers: Record<string, string>): Promise<void> {
  const script = join(work, 'traffic.ts');
  writeFileSync(
    script,
    `const [urls, headers, perSecond, seconds] = JSON.parse(process.argv[2]);
     for (let n = 0; n < perSecond * seconds; n++) {
       const started = performance.now();
       const res = await fetch(urls[n % urls.length], { headers });
       await res.arrayBuffer();
       if (res.status !== 200) throw new Error(urls[n % urls.length] + ' answered ' + res.status);
       await Bun.sleep(Math.max(0, 1000 / perSecond - (performance.now() - started)));
     }\n`,
  );
  const child = Bun.spawn([process.execPath, script, JSON.stringify([urls, headers, LIGHT_TRAFFIC.perSecond, LIGHT_TRAFFIC.seconds])], { stdout: 'inherit', stderr: 'inherit' });
  if ((await child.exited) !== 0) throw new Error('light traffic failed');
}

interface Target {
  label: string;
  command: string[];
  env: Record<string, string>;
  healthPath: string;
  /** After the last start: sets the target up as a user would (Panel: the install) and names what light traffic reads. */
  prepare(base: string): Promise<{ urls: string[]; headers: Record<string, string> }>;
}

async function measure(target: Target) {
  const times: number[] = [];
  const cpu: number[] = [];
  let installed = 0;
  let light = 0;
  for (let i = 0; i < STARTS; i++) {
    const port = freePort();
    const started = performance.now();
    const child = Bun.spawn(target.command, { env: { ...process.env, ...target.env, PANEL_PORT: String(port) }, stdout: 'ignore', stderr: 'ignore' });
    const base = `http://127.0.0.1:${port}`;
    await untilHealthy(`${base}${target.healthPath}`, child);
    times.push(performance.now() - started);
    cpu.push(cpuMs(child.pid));
    if (i === STARTS - 1) {
      const traffic = await target.prepare(base);
      await Bun.sleep(IDLE_MS); // idle a moment so RSS settles after start-up and install work
      installed = rssMiB(child.pid);
      await lightTraffic(traffic.urls, traffic.headers);
      light = rssMiB(child.pid);
    }
    child.kill('SIGTERM');
    await child.exited;
  }
  const medianOf = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { median: (sorted[STARTS / 2 - 1]! + sorted[STARTS / 2]!) / 2, range: `${sorted[0]!.toFixed(1)}–${sorted.at(-1)!.toFixed(1)}` };
  };
  const wall = medianOf(times);
  const cpuUsed = medianOf(cpu);
  console.log(
    `${target.label.padEnd(10)} start median ${wall.median.toFixed(1)} ms (${wall.range}), CPU by then ${cpuUsed.median.toFixed(1)} ms (${cpuUsed.range})  idle RSS ${installed.toFixed(1)} MiB  under light traffic ${light.toFixed(1)} MiB`,
  );
  return { median: wall.median, cpu: cpuUsed.median, installed, light };
}

const executable = build();
const bareScript = join(work, 'bare.ts');
writeFileSync(bareScript, "Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PANEL_PORT), fetch: () => Response.json({ status: 'ok' }) });\n");
const dataDir = join(work, 'data');

console.log(`executable ${executable} ${(Bun.file(executable).size / 1024 / 1024).toFixed(1)} MiB; light traffic ${LIGHT_TRAFFIC.perSecond} req/s for ${LIGHT_TRAFFIC.seconds} s\n`);
const bare = await measure({ label: 'bare bun', command: [process.execPath, bareScript], env: {}, healthPath: '/', prepare: async (base) => ({ urls: [`${base}/`], headers: {} }) });
const panel = await measure({
  label: 'panel',
  command: [executable, 'serve'],
  env: { PANEL_DATA_DIR: dataDir, PANEL_SECRETS: ring, PANEL_LOG_LEVEL: 'warn', PANEL_LOCAL_DAEMON: 'off' },
  healthPath: '/api/health',
  async prepare(base): Promise<{ urls: string[]; headers: Record<string, string> }> {
    if (!Bun.file(join(dataDir, 'install-token')).size) return { urls: [`${base}/api/health`], headers: {} };
    const token = readFileSync(join(dataDir, 'install-token'), 'utf8').trim();
    const res = await fetch(`${base}/api/install/v1/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ proof: { kind: 'token', token }, email: 'bench@example.test', password: 'a long benchmark password', organizationName: 'Bench' }),
    });
    if (res.status !== 201) throw new Error(`install answered ${res.status}: ${await res.text()}`);
    const cookie = res.headers.getSetCookie().find((header) => header.startsWith('panel_session='))!.split(';')[0]!;
    const { organizationId } = (await res.json()) as { organizationId: string };
    return { urls: [`${base}/`, `${base}/api/health/ready`, `${base}/api/client/v1/tags?organizationId=${organizationId}`, `${base}/api/client/v1/workspaces?organizationId=${organizationId}`], headers: { cookie } };
  },
});
const verdict = (value: number, goal: number) => `${value.toFixed(1)} (goal <= ${goal}: ${value <= goal ? 'met' : 'NOT met'})`;
console.log(`\nratios to bare bun: start ${(panel.median / bare.median).toFixed(2)}x (CPU ${(panel.cpu / bare.cpu).toFixed(2)}x), idle RSS ${(panel.installed / bare.installed).toFixed(2)}x, light traffic RSS ${(panel.light / bare.light).toFixed(2)}x`);
console.log(`goals: start ms ${verdict(panel.median, GOALS.startMs)}; idle RSS after install MiB ${verdict(panel.installed, GOALS.installedMiB)}; under light traffic MiB ${verdict(panel.light, GOALS.lightTrafficMiB)}`);
rmSync(work, { recursive: true, force: true });
