/**
 * Authentication cost over real HTTP, measured in one run:
 *   bun scripts/bench/auth.ts
 *
 * A child process serves a fresh Panel (file database in a temporary directory, Bun.serve on
 * 127.0.0.1, a free port); this process drives it with keep-alive fetches at a fixed concurrency,
 * in bounded loops. Printed:
 *   1. GET /api/health (unauthenticated baseline) requests per second.
 *   2. An authenticated GET doing the same work as the baseline (the real client guard in front of
 *      a handler that answers the caller's id; mounted by this script only), with a session
 *      cookie and with a Bearer API token: requests per second and the ratio to the baseline
 *      (target above 0.7). The difference is the cost of authentication alone.
 *   3. GET /api/client/v1/auth/session ("who am I", loaded by the console on every page): the
 *      same with that route's own two queries on top.
 *   4. Password sign-ins (Argon2id m=19456 t=2 p=1) per second.
 * Nothing is asserted. Tests never time (ARCHITECTURE.md §7).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CONCURRENCY = 16;
const WARMUP = 2_000;
const REQUESTS = 20_000;
const SIGN_INS = 60;
const SIGN_IN_CONCURRENCY = 4;
const PASSWORD = 'bench password, long enough';

interface Served {
  url: string;
  /** PANEL_PUBLIC_URL's origin: sign-in (a cookie write) must carry it. */
  origin: string;
  cookie: string;
  bearer: string;
  email: string;
}

/** The child: builds and serves the app, seeds one owner, prints how to reach it. */
async function serveChild(): Promise<void> {
  const { buildApp } = await import('../../src/app.ts');
  const { loadConfig } = await import('../../src/config.ts');
  const { generateKeyRingText, parseKeyRing } = await import('../../src/crypto/keyring.ts');
  const { createDb } = await import('../../src/db/client.ts');
  const { apiToken, user } = await import('../../src/db/schema/index.ts');
  const { hashPassword } = await import('../../src/auth/password.ts');
  const { hashToken, newOpaqueToken, signCookieValue } = await import('../../src/auth/token.ts');
  const { createSession } = await import('../../src/domain/identity/sessions.ts');
  const { createOrganization } = await import('../../src/domain/organizations/service.ts');
  const { sessionCookieName } = await import('../../src/http/plugins/guard.ts');
  const { systemClock } = await import('../../src/lib/clock.ts');
  const { silentLogger } = await import('../../src/lib/logger.ts');
  const { openMigratedDatabase } = await import('../../src/server.ts');

  const dataDir = process.env.BENCH_DATA_DIR!;
  const config = loadConfig({ PANEL_DATA_DIR: dataDir, PANEL_SECRETS: generateKeyRingText(), PANEL_PORT: '0' }, generateKeyRingText);
  const sqlite = openMigratedDatabase(config, silentLogger);
  const { DaemonHub } = await import('../../src/daemon/hub.ts');
  const db = createDb(sqlite);
  const deps = { config, sqlite, db, keyring: parseKeyRing(config.secrets), clock: systemClock, logger: silentLogger, hub: new DaemonHub({ db, clock: systemClock, logger: silentLogger }) };

  const email = 'bench@example.test';
  const owner = deps.db.insert(user).values({ email, passwordHash: await hashPassword(PASSWORD) }).returning().get();
  const org = createOrganization(deps.db, { name: 'Bench', ownerUserId: owner.id });
  const { token } = createSession(deps.db, deps.clock, owner.id);
  const bearer = newOpaqueToken('pat');
  deps.db.insert(apiToken).values({ organizationId: org.id, userId: owner.id, name: 'bench', role: 'owner', tokenHash: hashToken(bearer) }).run();

  const { Elysia } = await import('elysia');
  const { clientGuard } = await import('../../src/http/plugins/guard.ts');
  const probe = new Elysia().use(clientGuard(deps)).get('/api/bench/whoami', ({ actor }) => ({ userId: actor.userId }));
  const app = buildApp(deps).use(probe).listen({ hostname: '127.0.0.1', port: 0, reusePort: false });
  const served: Served = {
    url: `http://127.0.0.1:${app.server!.port}`,
    origin: new URL(config.publicUrl).origin,
    cookie: `${sessionCookieName(config.publicUrl)}=${encodeURIComponent(signCookieValue(deps.keyring, token))}`,
    bearer: `Bearer ${bearer}`,
    email,
  };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  process.once('SIGTERM', () => {
    app.stop();
    sqlite.close();
    process.exit(0);
  });
}

/** `count` requests at `concurrency`; returns requests per second. Every answer must be `status`. */
async function load(count: number, concurrency: number, request: () => Promise<Response>, status = 200): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const response = await request();
      await response.arrayBuffer();
      if (response.status !== status) throw new Error(`unexpected status ${response.status}`);
    }
  };
  const start = Bun.nanoseconds();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return count / ((Bun.nanoseconds() - start) / 1e9);
}

const format = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function drive(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-bench-auth-'));
  const child = Bun.spawn([process.execPath, import.meta.path, '--serve'], {
    env: { ...process.env, BENCH_DATA_DIR: dataDir },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  try {
    const reader = child.stdout.getReader();
    let text = '';
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the server process exited before it was ready');
      text += new TextDecoder().decode(value);
    }
    const served = JSON.parse(text.slice(0, text.indexOf('\n'))) as Served;
    const { origin } = served;

    const health = () => fetch(`${served.url}/api/health`);
    const authenticated = (path: string, headers: Record<string, string>) => () => fetch(`${served.url}${path}`, { headers });
    const kinds = {
      'GET whoami probe, session cookie': authenticated('/api/bench/whoami', { cookie: served.cookie }),
      'GET whoami probe, Bearer API token': authenticated('/api/bench/whoami', { authorization: served.bearer }),
      'GET auth/session, session cookie': authenticated('/api/client/v1/auth/session', { cookie: served.cookie }),
      'GET auth/session, Bearer API token': authenticated('/api/client/v1/auth/session', { authorization: served.bearer }),
    };
    const signIn = () =>
      fetch(`${served.url}/api/client/v1/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ email: served.email, password: PASSWORD }),
      });

    console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; server in a child process on ${served.url}`);
    console.log(`${format(REQUESTS)} requests per measurement at concurrency ${CONCURRENCY} (after ${format(WARMUP)} warm-up)\n`);
    for (const request of [health, ...Object.values(kinds)]) await load(WARMUP, CONCURRENCY, request);

    // Interleave the rounds so drift in the machine's load hits every kind alike.
    const rates = new Map<string, number[]>([['health', []], ...Object.keys(kinds).map((label) => [label, []] as [string, number[]])]);
    for (let round = 0; round < 3; round++) {
      rates.get('health')!.push(await load(REQUESTS / 3, CONCURRENCY, health));
      for (const [label, request] of Object.entries(kinds)) rates.get(label)!.push(await load(REQUESTS / 3, CONCURRENCY, request));
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const baseline = mean(rates.get('health')!);
    console.log(`${'GET /api/health (baseline)'.padEnd(44)} ${format(baseline).padStart(8)} req/s`);
    for (const label of Object.keys(kinds)) {
      const rate = mean(rates.get(label)!);
      console.log(`${label.padEnd(44)} ${format(rate).padStart(8)} req/s   ratio ${format(rate / baseline, 2)} (target > 0.70)`);
    }

    await load(4, 1, signIn);
    const signIns = await load(SIGN_INS, SIGN_IN_CONCURRENCY, signIn);
    console.log(`\n${'POST auth/sign-in (Argon2id m=19456 t=2 p=1)'.padEnd(44)} ${format(signIns, 1).padStart(8)} sign-ins/s (${SIGN_INS} at concurrency ${SIGN_IN_CONCURRENCY})`);
  } finally {
    child.kill('SIGTERM');
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serveChild();
else await drive();
