/**
 * Client API read throughput beside /api/health, measured in the same run:
 *   bun scripts/bench/api.ts
 *
 * Seeds a file database with 10,000 services (20 environments of 500), 50,000 variables (five
 * per service) and 200 projects, serves the real app with Bun.serve on 127.0.0.1:0 and drives
 * it from a separate process (the load generator never shares the server's event loop, heap or
 * thread) with 50 concurrent keep-alive connections: `wrk` (one thread) where it is installed, as
 * the issue's own measurement did, else this file again as a Bun fetch loop (which tops out below
 * what the server can answer on /api/health, flattering every ratio: the output says which ran),
 * against:
 *   - GET /api/health (no authentication, one trivial query): the baseline;
 *   - GET /api/client/v1/projects/{id} for random projects (bearer token: actor + project read);
 *   - GET /api/client/v1/services/{id} for random services;
 *   - GET /api/client/v1/services?environmentId=...&limit=50 (a 50-service list page).
 * Every round measures every route once, interleaved, and each route's ratio is taken against
 * the baseline of its own round; the medians and ranges over the rounds are printed, beside the
 * issue 20 goals (project read >= 0.5x, list page >= 0.3x). Nothing is asserted; it prints.
 * Tests never time (ARCHITECTURE.md §7).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import type { AppDeps } from '../../src/deps.ts';
import { hashToken, newOpaqueToken } from '../../src/auth/token.ts';
import { loadConfig } from '../../src/config.ts';
import { generateKeyRingText, parseKeyRing } from '../../src/crypto/keyring.ts';
import { createDb, openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { DaemonHub } from '../../src/daemon/hub.ts';
import { MIGRATIONS } from '../../src/db/migrations.ts';
import { apiToken, environment, type NewService, type NewVariable, project, service, user, variable, workspace } from '../../src/db/schema/index.ts';
import { createOrganization } from '../../src/domain/organizations/service.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { silentLogger } from '../../src/lib/logger.ts';

const ENVIRONMENTS = 20;
const SERVICES_PER_ENVIRONMENT = 500;
const VARIABLES_PER_SERVICE = 5;
const BATCH_ROWS = 1_000;
const CLIENTS = 50;
const REQUESTS_PER_CLIENT = 200;
const WARMUP_REQUESTS_PER_CLIENT = 40;
const ROUNDS = 5;
const PROJECTS = 200;
/** Issue 20's goals, each a ratio to /api/health in the same round. */
const GOALS: Record<string, number> = { 'GET /projects/{id}': 0.5, 'GET /services?limit=50': 0.3 };

interface Measurement {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

/** What the load thread is asked to run: `perClient` requests on each of `CLIENTS` keep-alive loops. */
interface LoadRequest {
  urls: string[];
  headers: Record<string, string>;
  perClient: number;
}

async function generateLoad({ urls, headers, perClient }: LoadRequest): Promise<Measurement> {
  const latencies: number[] = [];
  let failures = 0;
  const client = async () => {
    for (let i = 0; i < perClient; i++) {
      const started = Bun.nanoseconds();
      const response = await fetch(urls[Math.floor(Math.random() * urls.length)]!, { headers });
      await response.arrayBuffer();
      latencies.push((Bun.nanoseconds() - started) / 1e6);
      if (response.status !== 200) failures++;
    }
  };
  const started = Bun.nanoseconds();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const seconds = (Bun.nanoseconds() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const at = (quantile: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * quantile))]!;
  return { requestsPerSecond: latencies.length / seconds, p50: at(0.5), p99: at(0.99), failures };
}

function insertInBatches<T>(rows: T[], insert: (batch: T[]) => void): void {
  for (let start = 0; start < rows.length; start += BATCH_ROWS) insert(rows.slice(start, start + BATCH_ROWS));
}

/** One organization with an admin token, 10,000 services and 50,000 service-scope variables. */
function seed({ db }: AppDeps) {
  const owner = db.insert(user).values({ email: 'bench@example.test' }).returning().get();
  const org = createOrganization(db, { name: 'Bench', ownerUserId: owner.id });
  const token = newOpaqueToken('pat');
  db.insert(apiToken).values({ organizationId: org.id, userId: owner.id, name: 'bench', role: 'admin', tokenHash: hashToken(token) }).run();
  const workspaceId = db.insert(workspace).values({ organizationId: org.id, name: 'Apps' }).returning().get().id;
  const projectId = db.insert(project).values({ organizationId: org.id, workspaceId, name: 'Fleet' }).returning().get().id;
  const others = Array.from({ length: PROJECTS - 1 }, (_, n) => ({ organizationId: org.id, workspaceId, name: `Project ${n}`, description: 'a project among many' }));
  const projectIds = [projectId, ...db.insert(project).values(others).returning({ id: project.id }).all().map((row) => row.id)];

  const environmentIds: string[] = [];
  const services: NewService[] = [];
  for (let e = 0; e < ENVIRONMENTS; e++) {
    const environmentId = db.insert(environment).values({ projectId, name: `env-${e}` }).returning().get().id;
    environmentIds.push(environmentId);
    for (let s = 0; s < SERVICES_PER_ENVIRONMENT; s++) {
      services.push({ environmentId, composeServiceName: `svc-${s}`, metadata: { team: `team-${s % 7}` }, options: { instances: 1 + (s % 3) } });
    }
  }
  const serviceIds: string[] = [];
  db.transaction((tx) => insertInBatches(services, (batch) => serviceIds.push(...tx.insert(service).values(batch).returning({ id: service.id }).all().map((row) => row.id))));

  const variables: NewVariable[] = serviceIds.flatMap((serviceId) =>
    Array.from({ length: VARIABLES_PER_SERVICE }, (_, k) => ({ serviceId, key: `KEY_${k}`, value: `value-${k}` })),
  );
  db.transaction((tx) => insertInBatches(variables, (batch) => tx.insert(variable).values(batch).run()));
  return { token, projectIds, environmentIds, serviceIds, variableCount: variables.length };
}

const format = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-bench-api-'));
  const keyRing = generateKeyRingText();
  const config = loadConfig({ PANEL_DATA_DIR: dataDir, PANEL_SECRETS: keyRing, PANEL_LOG_LEVEL: 'error' }, () => keyRing);
  const sqlite = openDatabase(config.databaseFile);
  migrate(sqlite, MIGRATIONS);
  const db = createDb(sqlite);
  const hub = new DaemonHub({ db, clock: systemClock, logger: silentLogger });
  const deps: AppDeps = { config, sqlite, db, keyring: parseKeyRing(config.secrets), clock: systemClock, logger: silentLogger, hub };

  const seedStarted = Bun.nanoseconds();
  const { token, projectIds, environmentIds, serviceIds, variableCount } = seed(deps);
  console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`);
  console.log(`seeded ${format(serviceIds.length)} services and ${format(variableCount)} variables in ${format((Bun.nanoseconds() - seedStarted) / 1e9, 1)} s`);

  const app = buildApp(deps);
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.handle(request) });
  const base = `http://127.0.0.1:${server.port}`;
  const auth = { authorization: `Bearer ${token}` };
  const scenarios: { name: string; urls: string[]; headers: Record<string, string> }[] = [
    { name: 'GET /api/health', urls: [`${base}/api/health`], headers: {} },
    { name: 'GET /projects/{id}', urls: projectIds.map((id) => `${base}/api/client/v1/projects/${id}`), headers: auth },
    { name: 'GET /services/{id}', urls: serviceIds.map((id) => `${base}/api/client/v1/services/${id}`), headers: auth },
    { name: 'GET /services?limit=50', urls: environmentIds.map((id) => `${base}/api/client/v1/services?environmentId=${id}&limit=50`), headers: auth },
  ];

  const loader = Bun.which('wrk') ? wrkLoader(dataDir) : bunLoader();
  const run = loader.run;

  for (const { urls, headers } of scenarios) await run({ urls, headers, perClient: WARMUP_REQUESTS_PER_CLIENT });
  const rounds: Map<string, Measurement>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const results = new Map<string, Measurement>();
    for (const { name, urls, headers } of scenarios) results.set(name, await run({ urls, headers, perClient: REQUESTS_PER_CLIENT }));
    rounds.push(results);
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const spread = (values: number[], digits: number) => `${format(median(values), digits)} (${format(Math.min(...values), digits)}–${format(Math.max(...values), digits)})`;
  console.log(`\n${CLIENTS} concurrent connections from ${loader.name}, ${ROUNDS} interleaved rounds per route (${loader.round}); median (range)\n`);
  console.log(`${'route'.padEnd(24)} ${'req/s'.padStart(22)} ${'p99 ms'.padStart(20)} ${'ratio to health'.padStart(20)}`);
  for (const { name } of scenarios) {
    const results = rounds.map((round) => round.get(name)!);
    const ratios = rounds.map((round) => round.get(name)!.requestsPerSecond / round.get(scenarios[0]!.name)!.requestsPerSecond);
    const failures = results.reduce((sum, result) => sum + result.failures, 0);
    const goal = GOALS[name] === undefined ? '' : `   goal >= ${GOALS[name]}: ${median(ratios) >= GOALS[name] ? 'met' : 'NOT met'}`;
    const columns = [spread(results.map((r) => r.requestsPerSecond), 0).padStart(22), spread(results.map((r) => r.p99), 1).padStart(20), spread(ratios, 2).padStart(20)];
    console.log(`${name.padEnd(24)} ${columns.join(' ')}${goal}${failures > 0 ? `   ${failures} non-200 answers` : ''}`);
  }

  await loader.stop();
  await server.stop(true);
  sqlite.close();
  rmSync(dataDir, { recursive: true, force: true });
}

interface Loader {
  name: string;
  /** What one round of one route is. */
  round: string;
  run(request: LoadRequest): Promise<Measurement>;
  stop(): Promise<void>;
}

/** This file again, in its own process, one measurement per IPC message. */
function bunLoader(): Loader {
  let answer: ((measurement: Measurement) => void) | undefined;
  const child = Bun.spawn([process.execPath, import.meta.path, '--load'], { stdio: ['ignore', 'inherit', 'inherit'], ipc: (message: Measurement) => answer?.(message) });
  return {
    name: 'a Bun fetch loop in another process (wrk is not installed)',
    round: `${format(CLIENTS * REQUESTS_PER_CLIENT)} requests`,
    run: (request) =>
      new Promise<Measurement>((resolve) => {
        answer = resolve;
        child.send(request);
      }),
    async stop() {
      child.kill();
      await child.exited;
    },
  };
}

const WRK_SECONDS_PER_ROUND = 3;
const WRK_WARMUP_SECONDS = 1;

/** wrk with one thread (the server has the other core), a Lua script picking a random URL per request. */
function wrkLoader(dir: string): Loader {
  let scripts = 0;
  return {
    name: 'wrk (one thread, another process)',
    round: `${WRK_SECONDS_PER_ROUND} s`,
    async run({ urls, headers, perClient }) {
      const script = join(dir, `load-${scripts++}.lua`);
      const paths = urls.map((url) => new URL(url).pathname + new URL(url).search);
      const headerLines = Object.entries(headers).map(([name, value]) => `[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
      await Bun.write(
        script,
        `local paths = {${paths.map((path) => JSON.stringify(path)).join(',')}}\nlocal headers = {${headerLines.join(',')}}\n` +
          'request = function() return wrk.format("GET", paths[math.random(#paths)], headers) end\n',
      );
      const seconds = perClient === WARMUP_REQUESTS_PER_CLIENT ? WRK_WARMUP_SECONDS : WRK_SECONDS_PER_ROUND;
      const wrk = Bun.spawn(['wrk', '-t1', `-c${CLIENTS}`, `-d${seconds}s`, '--latency', '-s', script, new URL(urls[0]!).origin], { stdout: 'pipe', stderr: 'inherit' });
      const output = await new Response(wrk.stdout).text();
      if ((await wrk.exited) !== 0) throw new Error(`wrk failed:\n${output}`);
      const milliseconds = (text: string) => Number.parseFloat(text) * (text.endsWith('us') ? 1e-3 : text.endsWith('ms') ? 1 : 1e3);
      const requestsPerSecond = Number(output.match(/Requests\/sec:\s+([\d.]+)/)![1]);
      const p50 = milliseconds(output.match(/^\s+50%\s+(\S+)/m)![1]!);
      const p99 = milliseconds(output.match(/^\s+99%\s+(\S+)/m)![1]!);
      const failures = Number(output.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0) + Number(output.match(/Socket errors:.*?(\d+) timeout/)?.[1] ?? 0);
      return { requestsPerSecond, p50, p99, failures };
    },
    async stop() {},
  };
}

if (process.argv[2] === '--load') {
  // The load-generator process: one measurement per message.
  process.on('message', async (request: LoadRequest) => process.send!(await generateLoad(request)));
} else {
  await main();
}
