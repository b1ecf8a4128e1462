/**
 * Deploy compiler speed on a 500-service project:
 *   bun scripts/bench/compose.ts
 *
 * The project: 500 services (a fifth built from source, some depending on a database, a tenth
 * running two instances) with an environment overlay using !override and !reset, and variables
 * at all seven scopes: the target server, organization, workspace, project, environment, every
 * service and two hostings per web service, including secrets. One run is resolveVariables +
 * compile, from stored document data to the compose.yaml text. Target: median under 50 ms.
 *
 * Then `docker compose config` (Compose v2) reads the same compiled document in the same
 * run, and the ratio of the two medians is printed (skipped, with the reason, without a binary).
 *
 * Last, whole processes as a user runs them: the built `panel compose config base.yaml` beside
 * `docker compose -f base.yaml config` on the same 50- and 500-service files, interleaved, median
 * and range of several runs, wall time and CPU time (goal, issue 20: Panel faster at both sizes).
 * A built executable may be given: `bun scripts/bench/compose.ts path/to/panel`; otherwise one
 * is built.
 * Nothing is asserted; it prints. Tests never time (ARCHITECTURE.md §7).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompileInput, compile } from '../../src/compose/compile.ts';
import { findComposeBinary, runComposeConfig } from '../../src/compose/compose-binary.ts';
import type { JsonObject } from '../../src/compose/values.ts';
import { resolveVariables, type ServiceScopeChain, type VariableRow } from '../../src/compose/variables.ts';

const SERVICES = 500;
const COMPILE_RUNS = 25;
const COMPOSE_RUNS = 3;
const PROCESS_RUNS = 7;
const PROCESS_SIZES = [50, 500];
const TARGET_MS = 50;

const id = (group: number, n: number) => `01940000-0000-7000-8${String(group).padStart(3, '0')}-${String(n).padStart(12, '0')}`;
const ORG = id(1, 1);
const WORKSPACE = id(2, 1);
const PROJECT = id(3, 1);
const ENVIRONMENT = id(4, 1);
const SERVER = id(5, 1);
const serviceId = (i: number) => id(6, i);
const hostingId = (i: number, n: number) => id(7, i * 10 + n);

const keyOf = (i: number) => (i === 0 ? 'db' : `svc${String(i).padStart(3, '0')}`);
const builds = (i: number) => i % 5 === 1;
const isWeb = (i: number) => i % 4 === 0 && i > 0;

function baseDocument(count = SERVICES): JsonObject {
  const services: JsonObject = {
    db: {
      image: 'postgres:17',
      environment: { POSTGRES_USER: 'app', POSTGRES_DB: 'app' },
      healthcheck: { test: ['CMD-SHELL', 'pg_isready -U app'], interval: '5s' },
      volumes: ['pgdata:/var/lib/postgresql/data'],
    },
  };
  for (let i = 1; i < count; i++) {
    const service: JsonObject = {
      image: `ghcr.io/acme/app-${i % 17}:1.${i % 9}.0`,
      command: ['node', `service-${i}.js`],
      environment: { SERVICE_INDEX: String(i), APP_ENV: 'development', FEATURE_FLAGS: 'a,b,c' },
      restart: 'unless-stopped',
      labels: { 'com.example.tier': isWeb(i) ? 'web' : 'backend' },
      healthcheck: { test: ['CMD', 'wget', '-qO-', 'http://localhost:8080/health'], interval: '10s', retries: 3 },
      volumes: [`data-${i % 10}:/data`],
    };
    if (builds(i)) service.build = { context: `./services/${i}`, args: { NODE_VERSION: '22' } };
    if (i % 3 === 0) service.depends_on = { db: { condition: 'service_healthy' } };
    if (i % 25 === 0) service['x-panel'] = { serviceKind: 'worker', principal: 'app' };
    services[keyOf(i)] = service;
  }
  const volumes: JsonObject = { pgdata: {} };
  for (let n = 0; n < 10; n++) volumes[`data-${n}`] = {};
  return { 'x-panel': { principals: { app: { uid: 1001, gid: 1001 } } }, services, volumes };
}

function overlayDocument(): JsonObject {
  const services: JsonObject = {};
  for (let i = 1; i < SERVICES; i += 10) {
    services[keyOf(i)] = {
      image: { $override: `ghcr.io/acme/app-${i % 17}:2.0.0` },
      environment: { APP_ENV: 'production', FEATURE_FLAGS: { $reset: null } },
      volumes: { $reset: [] },
    };
  }
  return { services };
}

function variables(): VariableRow[] {
  const rows: VariableRow[] = [];
  const add = (scope: VariableRow['scope'], scopeId: string, key: string, flags: Partial<VariableRow> = {}) =>
    rows.push({ id: `${scope}/${scopeId}/${key}`, key, value: `${key.toLowerCase()}-$HOSTNAME-${scope}`, isSecret: false, isLiteral: rows.length % 3 === 0, forBuild: false, forRuntime: true, scope, scopeId, ...flags });
  for (let n = 0; n < 5; n++) add('server', SERVER, `HOST_${n}`);
  for (let n = 0; n < 10; n++) add('organization', ORG, `ORG_${n}`);
  for (let n = 0; n < 10; n++) add('workspace', WORKSPACE, n < 5 ? `ORG_${n}` : `WORKSPACE_${n}`);
  for (let n = 0; n < 10; n++) add('project', PROJECT, `PROJECT_${n}`, { forBuild: n < 2 });
  for (let n = 0; n < 10; n++) add('environment', ENVIRONMENT, n < 3 ? `PROJECT_${n}` : `ENV_${n}`);
  add('environment', ENVIRONMENT, 'DATABASE_PASSWORD', { isSecret: true, value: 'pnsecret.v1.k1.opaque' });
  for (let i = 0; i < SERVICES; i++) {
    add('service', serviceId(i), 'SERVICE_NAME');
    add('service', serviceId(i), 'APP_ENV');
    if (i % 10 === 0) add('service', serviceId(i), 'API_TOKEN', { isSecret: true, value: 'pnsecret.v1.k1.opaque' });
    if (isWeb(i)) for (const n of [1, 2]) add('hosting', hostingId(i, n), 'PUBLIC_URL');
  }
  return rows;
}

function chains(): ServiceScopeChain[] {
  return Array.from({ length: SERVICES }, (_, i) => ({
    serviceId: serviceId(i),
    organizationId: ORG,
    workspaceId: WORKSPACE,
    projectId: PROJECT,
    environmentId: ENVIRONMENT,
    hostingIds: isWeb(i) ? [hostingId(i, 1), hostingId(i, 2)] : [],
  }));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

const base = baseDocument();
const overlay = overlayDocument();
const rows = variables();
const serviceChains = chains();
const services = Array.from({ length: SERVICES }, (_, i) => ({ id: serviceId(i), composeServiceName: keyOf(i), options: { instances: i % 10 === 5 ? 2 : 1 } }));

function compileOnce() {
  const input: CompileInput = {
    base,
    overlay,
    organizationId: ORG,
    projectId: PROJECT,
    environmentId: ENVIRONMENT,
    placement: { anchorServerId: SERVER, servers: [{ id: SERVER, name: 'server', hostname: 'server', labels: {}, connected: true }], previous: [], fabric: { enabled: false } },
    policy: { hostAccess: false },
    services,
    variablesOn: (serverId) => resolveVariables(rows, serviceChains, serverId),
    principals: { app: { appliedUsername: 'app', uid: 1001, gid: 1001 } },
  };
  return compile(input);
}

console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, load average ${loadavg()[0]!.toFixed(1)}; ${SERVICES} services, ${rows.length} variable rows\n`);
let result = compileOnce().documents[0]!; // warm-up
const timings: number[] = [];
for (let run = 0; run < COMPILE_RUNS; run++) {
  const start = Bun.nanoseconds();
  result = compileOnce().documents[0]!;
  timings.push((Bun.nanoseconds() - start) / 1e6);
}
const compileMedian = median(timings);
console.log(`compiled: ${Object.keys(result.model.services as JsonObject).length} Compose services, ${result.containers.length} containers, ${result.secrets.length} secret files, ${(result.yaml.length / 1024).toFixed(0)} KiB of YAML`);
console.log(`resolveVariables + compile, median of ${COMPILE_RUNS}: ${ms(compileMedian)} (min ${ms(Math.min(...timings))}, max ${ms(Math.max(...timings))}); target < ${TARGET_MS} ms: ${compileMedian < TARGET_MS ? 'met' : 'MISSED'}`);

const lookup = await findComposeBinary();
if (!lookup.found) {
  console.log(`\nratio to docker compose config skipped: ${lookup.reason}`);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'panel-bench-compose-'));
  try {
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'compose.yaml'), result.yaml);
    for (const { name } of result.secrets) writeFileSync(join(dir, 'secrets', name), '', { mode: 0o600 });
    const composeTimings: number[] = [];
    for (let run = 0; run < COMPOSE_RUNS; run++) {
      const start = Bun.nanoseconds();
      const output = await runComposeConfig(lookup.binary, ['compose.yaml'], { cwd: dir, projectName: result.model.name as string, flags: ['--quiet'] });
      composeTimings.push((Bun.nanoseconds() - start) / 1e6);
      if (output.exitCode !== 0) throw new Error(`compose config refused the compiled document: ${output.stderr.slice(0, 2000)}`);
    }
    const composeMedian = median(composeTimings);
    console.log(`${lookup.binary.command.join(' ')} ${lookup.binary.version} config -q on the same document, median of ${COMPOSE_RUNS}: ${ms(composeMedian)}`);
    console.log(`ratio: compose config takes ${(composeMedian / compileMedian).toFixed(1)}x the time of our compile`);
    await wholeProcesses(lookup.binary.command, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `panel compose config` and `docker compose config` as whole processes on the same files. */
async function wholeProcesses(compose: string[], dir: string): Promise<void> {
  let panel = process.argv[2];
  if (!panel) {
    panel = join(dir, 'panel');
    const built = Bun.spawnSync([process.execPath, join(import.meta.dir, '..', 'build.ts'), panel], { stdout: 'ignore', stderr: 'inherit' });
    if (built.exitCode !== 0) throw new Error('build failed');
  }
  const spread = (values: number[]) => `${ms(median(values))} (${values.length} runs, ${ms(Math.min(...values))}–${ms(Math.max(...values))})`;
  console.log(`\nwhole processes, ${panel}:`);
  for (const size of PROCESS_SIZES) {
    const file = join(dir, `base-${size}.yaml`);
    writeFileSync(file, Bun.YAML.stringify(baseDocument(size), null, 2));
    const commands = { panel: [panel, 'compose', 'config', file], compose: [...compose, '-f', file, 'config'] };
    const timings: Record<keyof typeof commands, number[]> = { panel: [], compose: [] };
    // CPU time (user + system, every thread) beside the wall time: a busy machine stretches the
    // wall time of both far more than it changes the work each does.
    const cpu: Record<keyof typeof commands, number[]> = { panel: [], compose: [] };
    for (let run = 0; run <= PROCESS_RUNS; run++) {
      for (const name of ['panel', 'compose'] as const) {
        const start = Bun.nanoseconds();
        const output = Bun.spawnSync(commands[name], { cwd: dir, stdout: 'ignore', stderr: 'pipe' });
        const elapsed = (Bun.nanoseconds() - start) / 1e6;
        if (output.exitCode !== 0) throw new Error(`${name} refused base-${size}.yaml: ${output.stderr.toString().slice(0, 2000)}`);
        if (run === 0) continue; // run 0 warms the page cache
        timings[name].push(elapsed);
        cpu[name].push(Number(output.resourceUsage.cpuTime.user + output.resourceUsage.cpuTime.system) / 1000);
      }
    }
    const ratio = median(timings.panel) / median(timings.compose);
    console.log(`  ${String(size).padStart(3)} services: panel compose config ${spread(timings.panel)}; docker compose config ${spread(timings.compose)}`);
    console.log(`               CPU: panel ${spread(cpu.panel)}; docker compose ${spread(cpu.compose)}; ${(median(cpu.panel) / median(cpu.compose)).toFixed(2)}x`);
    console.log(`               panel / docker compose = ${ratio.toFixed(2)}x (goal < 1: ${ratio < 1 ? 'met' : 'NOT met'})`);
  }
}
