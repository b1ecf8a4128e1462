/**
 * Builds dist/panel: one executable holding the server, the console, the migrations (embedded
 * by a Bun macro) and the agent. Bytecode roughly halves cold start; splitting makes each
 * `import()` of the console a chunk of its own (src/http/console.ts). Worker threads are entry
 * points of their own (`new Worker(new URL(..., import.meta.url))` finds them inside the executable).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dir, '..');
const WORKERS = ['src/ops/snapshot-worker.ts'];
const outfile = process.argv[2] ?? join(root, 'dist', 'panel');
mkdirSync(join(outfile, '..'), { recursive: true });

const build = Bun.spawnSync(
  [process.execPath, 'build', '--compile', '--splitting', '--minify', '--bytecode', '--format=esm', '--sourcemap=none', join(root, 'src', 'main.ts'), ...WORKERS.map((worker) => join(root, worker)), '--outfile', outfile],
  { cwd: root, stdout: 'inherit', stderr: 'inherit' },
);
if (build.exitCode !== 0) {
  console.error(`build failed (exit ${build.exitCode})`);
  process.exit(build.exitCode ?? 1);
}
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB)`);
