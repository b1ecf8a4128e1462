/**
 * Startup benchmark: executable size, median spawn-to-first-healthy-answer over 10 starts, and
 * idle RSS — each beside a bare Bun server (same runtime, one route) measured in the same run,
 * so the ratio is what Panel itself adds on this (noisy) machine.
 *   bun scripts/bench/startup.ts [path/to/panel]
 * Targets: start under 150 ms, idle RSS under 80 MB.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const STARTS = 10;
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

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024;
}

async function measure(label: string, command: (port: number) => string[], env: Record<string, string>, path: string) {
  const times: number[] = [];
  let rss = 0;
  for (let i = 0; i < STARTS; i++) {
    const port = freePort();
    const started = performance.now();
    const child = Bun.spawn(command(port), { env: { ...process.env, ...env, PANEL_PORT: String(port) }, stdout: 'ignore', stderr: 'ignore' });
    await untilHealthy(`http://127.0.0.1:${port}${path}`, child);
    times.push(performance.now() - started);
    if (i === STARTS - 1) {
      await Bun.sleep(2000); // idle a moment so RSS settles after start-up work
      rss = rssMiB(child.pid);
    }
    child.kill('SIGTERM');
    await child.exited;
  }
  times.sort((a, b) => a - b);
  const median = (times[4]! + times[5]!) / 2;
  console.log(`${label.padEnd(12)} median start ${median.toFixed(1)} ms  idle RSS ${rss.toFixed(1)} MiB`);
  return { median, rss };
}

const executable = build();
const baselineScript = join(work, 'bare.ts');
writeFileSync(baselineScript, "Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.PANEL_PORT), fetch: () => Response.json({ status: 'ok' }) });\n");

console.log(`executable   ${executable} ${(Bun.file(executable).size / 1024 / 1024).toFixed(1)} MiB`);
const dataDir = join(work, 'data');
const baseline = await measure('bare bun', () => [process.execPath, baselineScript], {}, '/');
const panel = await measure('panel', () => [executable, 'serve'], { PANEL_DATA_DIR: dataDir, PANEL_SECRETS: ring, PANEL_LOG_LEVEL: 'warn' }, '/api/health');
console.log(`ratio        start ${(panel.median / baseline.median).toFixed(2)}x bare bun, RSS ${(panel.rss / baseline.rss).toFixed(2)}x bare bun`);
console.log(`targets      start < 150 ms: ${panel.median < 150 ? 'met' : 'NOT met'}; idle RSS < 80 MiB: ${panel.rss < 80 ? 'met' : 'NOT met'}`);
rmSync(work, { recursive: true, force: true });
