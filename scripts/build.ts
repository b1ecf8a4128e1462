/**
 * Builds dist/panel: one executable holding the server, the console, the migrations (embedded
 * by a Bun macro) and the agent. Bytecode roughly halves cold start; splitting makes each
 * `import()` of the console a chunk of its own (src/http/console.ts). Worker threads are entry
 * points of their own (`new Worker(new URL(..., import.meta.url))` finds them inside the executable).
 *
 * Built twice: the first executable is run the way users start it (`panel serve` answering its
 * first requests, `panel compose config`) with BUN_BYTECODE_ORDER_OUT, which records the
 * functions those runs use; the second build lays that bytecode out first (`--bytecode-order`),
 * so a start reads and decodes less of the executable. The executable also starts with the JIT's
 * tier-up thresholds raised 8x (`--compile-jit-policy`): start-up code runs once and compiling it
 * costs more than it saves; `panel serve` and the agent return to the normal policy once started
 * (`afterStartUp` in src/main.ts). Figures in docs/PERFORMANCE.md.
 *   bun scripts/build.ts [outfile]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dir, '..');
const WORKERS = ['src/ops/snapshot-worker.ts'];
const JIT_POLICY = 8;
const outfile = process.argv[2] ?? join(root, 'dist', 'panel');
mkdirSync(join(outfile, '..'), { recursive: true });

function build(extra: string[]): void {
  const flags = ['--compile', `--compile-jit-policy=${JIT_POLICY}`, '--splitting', '--minify', '--bytecode', '--format=esm', '--sourcemap=none', ...extra];
  const entries = [join(root, 'src', 'main.ts'), ...WORKERS.map((worker) => join(root, worker))];
  const result = Bun.spawnSync([process.execPath, 'build', ...flags, ...entries, '--outfile', outfile], { cwd: root, stdout: 'inherit', stderr: 'inherit' });
  if (result.exitCode !== 0) {
    console.error(`build failed (exit ${result.exitCode})`);
    process.exit(result.exitCode ?? 1);
  }
}

/** Only what the recorded runs need: none of the builder's own PANEL_* settings leak in. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR']) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  return { ...env, ...extra };
}

/** `panel serve` on a fresh data dir: its start, and the first requests a browser and a probe make. */
async function recordServe(work: string, order: string): Promise<void> {
  const child = Bun.spawn([outfile, 'serve'], {
    env: cleanEnv({
      BUN_BYTECODE_ORDER_OUT: order,
      PANEL_DATA_DIR: join(work, 'data'),
      PANEL_HOST: '127.0.0.1',
      PANEL_PORT: '0',
      PANEL_SECRETS: `build:${randomBytes(32).toString('base64')}`,
      PANEL_LOCAL_DAEMON: 'off',
      PANEL_LOG_LEVEL: 'info',
    }),
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    // The log is read to its end (a closed pipe would fail the server's last lines); the URL comes from it.
    let seen = '';
    const { promise: started, resolve } = Promise.withResolvers<string | undefined>();
    const drained = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) {
        seen += decoder.decode(chunk, { stream: true });
        const url = seen.match(/"msg":"panel serving".*?"url":"([^"]+)"/)?.[1];
        if (url) resolve(url);
      }
      resolve(undefined);
    })();
    const url = await started;
    if (!url) throw new Error(`panel serve did not start while recording the bytecode order:\n${seen}`);
    for (const path of ['/api/health', '/api/health/ready', '/', '/api/client/v1/projects']) await (await fetch(`${url}${path}`)).arrayBuffer();
    child.kill('SIGTERM');
    await drained;
    if ((await child.exited) !== 0) throw new Error(`panel serve exited with ${child.exitCode} while recording the bytecode order:\n${seen}`);
  } finally {
    clearTimeout(deadline);
  }
}

/** `panel compose config` on a small project with an overlay. */
function recordComposeConfig(work: string, order: string): void {
  const services = Array.from({ length: 20 }, (_, i) => `  app${i}:\n    image: ghcr.io/acme/app:1.${i}\n    environment:\n      INDEX: "${i}"\n    depends_on: [db]\n`);
  writeFileSync(join(work, 'compose.yaml'), `services:\n  db:\n    image: postgres:17\n    volumes: [data:/var/lib/postgresql/data]\n${services.join('')}volumes:\n  data: {}\n`);
  writeFileSync(join(work, 'overlay.yaml'), 'services:\n  app1:\n    environment: !override\n      INDEX: "one"\n');
  const result = Bun.spawnSync([outfile, 'compose', 'config', join(work, 'compose.yaml'), join(work, 'overlay.yaml')], { env: cleanEnv({ BUN_BYTECODE_ORDER_OUT: order }), stdout: 'ignore', stderr: 'pipe' });
  if (result.exitCode !== 0) throw new Error(`panel compose config failed while recording the bytecode order: ${result.stderr.toString()}`);
}

build([]);
const work = mkdtempSync(join(tmpdir(), 'panel-build-order-'));
try {
  const orders = [join(work, 'serve.order'), join(work, 'compose.order')];
  await recordServe(work, orders[0]!);
  recordComposeConfig(work, orders[1]!);
  build([`--bytecode-order=${orders.join(',')}`]);
} finally {
  rmSync(work, { recursive: true, force: true });
}
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB)`);
