/**
 * Compose v2 for the tests that compare with the real `docker compose config`: found where
 * findComposeBinary looks ($PANEL_COMPOSE_BIN, /tmp/compose-v2, `docker compose`), else fetched
 * once through ../shared/tools/get-compose-v2.sh, as the Docker tests do, so `npm test` runs
 * them on a fresh machine with no extra environment. The fetch holds a lock, so checkouts testing
 * side by side never unpack into /tmp/compose-v2 at the same time. Tests skip, printing the
 * reason, only when it cannot be had at all.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ComposeBinaryLookup, findComposeBinary } from '../src/compose/compose-binary.ts';

export const GET_COMPOSE_V2_SCRIPT = join(import.meta.dir, '../../shared/tools/get-compose-v2.sh');

let lookup: Promise<ComposeBinaryLookup> | undefined;

/** The lookup, fetching Compose first when it is nowhere; one attempt per test process. */
export function composeV2ForTests(): Promise<ComposeBinaryLookup> {
  lookup ??= findOrFetch();
  return lookup;
}

async function findOrFetch(): Promise<ComposeBinaryLookup> {
  const found = await findComposeBinary();
  if (found.found) return found;
  if (!existsSync(GET_COMPOSE_V2_SCRIPT)) return { found: false, reason: `${found.reason}; ${GET_COMPOSE_V2_SCRIPT} is missing` };
  const fetcher = Bun.spawn(['flock', '-w', '300', '/tmp/compose-v2.lock', 'bash', GET_COMPOSE_V2_SCRIPT], {
    env: { ...process.env, DEST: '/tmp/compose-v2' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(fetcher.stdout).text(), new Response(fetcher.stderr).text(), fetcher.exited]);
  if (exitCode !== 0) return { found: false, reason: `${found.reason}; get-compose-v2.sh exited ${exitCode}: ${stderr.trim().split('\n').slice(-3).join(' | ')}` };
  // The script prints where it unpacked the plugin.
  return findComposeBinary({ ...process.env, PANEL_COMPOSE_BIN: stdout.trim() });
}
