/**
 * Client API read throughput, measured against /api/health in the same run:
 *   bun scripts/bench/api.ts
 *
 * Seeds a file database with 10,000 services (20 environments of 500) and 50,000 variables
 * (five per service, inserted directly in batches), serves the real app with Bun.serve on
 * 127.0.0.1:0, and drives it from a worker thread (so the server's event loop only serves)
 * with 50 concurrent keep-alive clients, each sending a bounded number of requests, against:
 *   - GET /api/health (no authentication, one trivial query): the baseline;
 *   - GET /api/client/v1/services/{id} for random services (bearer token: actor + service read);
 *   - GET /api/client/v1/services?environmentId=...&limit=50 (one page of a 500-service list).
 * The routes are measured in interleaved rounds and each keeps its best round, so a burst of
 * load from elsewhere on the machine does not decide a ratio. Prints requests per second, p50
 * and p99 latency and each route's ratio to the baseline. Targets: service read ratio above 0.5
 * and p99 under 10 ms. Nothing is asserted; it prints. Tests never time (ARCHITECTURE.md §7).
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
import { embeddedMigrations } from '../../src/db/migrations.macro.ts' with { type: 'macro' };
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
const ROUNDS = 3;
const TARGET_READ_RATIO = 0.5;
const TARGET_P99_MS = 10;

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
  return { token, environmentIds, serviceIds, variableCount: variables.length };
}

const format = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-bench-api-'));
  const keyRing = generateKeyRingText();
  const config = loadConfig({ PANEL_DATA_DIR: dataDir, PANEL_SECRETS: keyRing, PANEL_LOG_LEVEL: 'error' }, () => keyRing);
  const sqlite = openDatabase(config.databaseFile);
  migrate(sqlite, embeddedMigrations());
  const db = createDb(sqlite);
  const hub = new DaemonHub({ db, clock: systemClock, logger: silentLogger });
  const deps: AppDeps = { config, sqlite, db, keyring: parseKeyRing(config.secrets), clock: systemClock, logger: silentLogger, hub };

  const seedStarted = Bun.nanoseconds();
  const { token, environmentIds, serviceIds, variableCount } = seed(deps);
  console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`);
  console.log(`seeded ${format(serviceIds.length)} services and ${format(variableCount)} variables in ${format((Bun.nanoseconds() - seedStarted) / 1e9, 1)} s`);

  const app = buildApp(deps);
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.handle(request) });
  const base = `http://127.0.0.1:${server.port}`;
  const auth = { authorization: `Bearer ${token}` };
  const scenarios: { name: string; urls: string[]; headers: Record<string, string> }[] = [
    { name: 'GET /api/health', urls: [`${base}/api/health`], headers: {} },
    { name: 'GET /services/{id}', urls: serviceIds.map((id) => `${base}/api/client/v1/services/${id}`), headers: auth },
    { name: 'GET /services?environmentId', urls: environmentIds.map((id) => `${base}/api/client/v1/services?environmentId=${id}&limit=50`), headers: auth },
  ];

  const loader = new Worker(import.meta.path);
  const run = (request: LoadRequest) =>
    new Promise<Measurement>((resolve) => {
      loader.onmessage = (event: MessageEvent<Measurement>) => resolve(event.data);
      loader.postMessage(request);
    });

  const best = new Map<string, Measurement>();
  for (const { urls, headers } of scenarios) await run({ urls, headers, perClient: WARMUP_REQUESTS_PER_CLIENT });
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, urls, headers } of scenarios) {
      const result = await run({ urls, headers, perClient: REQUESTS_PER_CLIENT });
      if (result.requestsPerSecond > (best.get(name)?.requestsPerSecond ?? 0)) best.set(name, result);
    }
  }

  console.log(`\n${CLIENTS} concurrent clients, best of ${ROUNDS} interleaved rounds of ${format(CLIENTS * REQUESTS_PER_CLIENT)} requests per route\n`);
  console.log(`${'route'.padEnd(30)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'ratio'.padStart(6)}`);
  const baseline = best.get(scenarios[0]!.name)!.requestsPerSecond;
  for (const { name } of scenarios) {
    const result = best.get(name)!;
    const failed = result.failures > 0 ? `   ${result.failures} non-200 answers` : '';
    const columns = [format(result.requestsPerSecond).padStart(9), format(result.p50, 2).padStart(8), format(result.p99, 2).padStart(8)];
    console.log(`${name.padEnd(30)} ${columns.join(' ')} ${format(result.requestsPerSecond / baseline, 2).padStart(6)}${failed}`);
  }
  const read = best.get('GET /services/{id}')!;
  const readRatio = read.requestsPerSecond / baseline;
  console.log(
    `\nservice read: ratio ${format(readRatio, 2)} (${readRatio > TARGET_READ_RATIO ? 'above' : 'BELOW'} the ${TARGET_READ_RATIO} target), ` +
      `p99 ${format(read.p99, 2)} ms (${read.p99 < TARGET_P99_MS ? 'under' : 'OVER'} the ${TARGET_P99_MS} ms target)`,
  );

  loader.terminate();
  await server.stop(true);
  sqlite.close();
  rmSync(dataDir, { recursive: true, force: true });
}

if (Bun.isMainThread) {
  await main();
} else {
  // The load-generator thread: one measurement per message.
  self.onmessage = async (event: MessageEvent<LoadRequest>) => postMessage(await generateLoad(event.data));
}
