/**
 * Placement planner speed: 500 services over 50 servers.
 *   bun scripts/bench/planner.ts
 *
 * The fleet: 50 connected servers with `zone` (5 values) and `disk` (ssd on every third) labels.
 * The document: a fifth of the services anchored (some with two instances), most replicated
 * (2-4 replicas, some at most one per server, some on ssd only, some spread over zones, some
 * publishing a fixed host port), a tenth global on ssd servers, sidecars sharing a service's
 * network namespace, and an overlay-free network. Two plans are timed: a first deploy (nothing
 * placed before) and a redeploy with the first plan as the previous placement (the sticky
 * path). Target: median under 50 ms for each.
 *
 * Baseline, in the same run: validateCompose on the same document, the check every save and
 * deploy already pays; the ratio of the medians is printed. Each run is measured as wall time
 * and as the process's CPU time (process.cpuUsage), which a machine shared with other work
 * disturbs much less. Nothing is asserted; it prints. Tests never time (ARCHITECTURE.md §7).
 */
import { loadavg } from 'node:os';
import { type PlannerServer, planPlacement, type PreviousReplica } from '../../src/compose/planner/plan.ts';
import { validateCompose } from '../../src/compose/validate.ts';
import type { JsonObject } from '../../src/compose/values.ts';

const SERVICES = 500;
const SERVERS = 50;
const RUNS = 25;
const TARGET_MS = 50;

const servers: PlannerServer[] = Array.from({ length: SERVERS }, (_, i) => ({
  id: `01940000-0000-7000-8000-${String(i).padStart(12, '0')}`,
  name: `node-${i}`,
  hostname: `node-${i}.example.net`,
  labels: { zone: `z${i % 5}`, ...(i % 3 === 0 ? { disk: 'ssd' } : {}) },
  connected: true,
}));

function documentOf(): JsonObject {
  const services: JsonObject = {};
  for (let i = 0; i < SERVICES; i++) {
    const key = `svc${String(i).padStart(3, '0')}`;
    const service: JsonObject = { image: `ghcr.io/acme/app-${i % 17}:1.0`, networks: ['back'] };
    if (i % 10 === 9) {
      service.network_mode = `service:svc${String(i - 1).padStart(3, '0')}`;
      delete service.networks;
    } else if (i % 10 === 7) {
      service.deploy = { mode: 'global', placement: { constraints: ['node.labels.disk == ssd'] } };
    } else if (i % 5 !== 0) {
      const placement: JsonObject = {};
      if (i % 3 === 0) placement.max_replicas_per_node = 1;
      if (i % 4 === 1) placement.constraints = ['node.labels.disk == ssd', `node.hostname != node-${i % SERVERS}.example.net`];
      if (i % 6 === 2) placement.preferences = [{ spread: 'node.labels.zone' }];
      service.deploy = { replicas: 2 + (i % 3), placement };
      if (i % 8 === 3) service.ports = [`${20000 + i}:8080`];
    }
    services[key] = service;
  }
  return { services, networks: { back: { driver: 'bridge' } } };
}

const document = documentOf();
const instances = new Map(Array.from({ length: SERVICES }, (_, i) => [`svc${String(i).padStart(3, '0')}`, i % 20 === 0 ? 2 : 1]));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Wall and CPU milliseconds of each run, after a warm-up. */
function time(work: () => unknown): { wall: number[]; cpu: number[] } {
  work();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = Bun.nanoseconds();
    const used = process.cpuUsage();
    work();
    const spent = process.cpuUsage(used);
    wall.push((Bun.nanoseconds() - start) / 1e6);
    cpu.push((spent.user + spent.system) / 1000);
  }
  return { wall, cpu };
}

const base = { document, instances, servers, anchorServerId: servers[0]!.id, fabric: { enabled: false } };
const first = planPlacement({ ...base, previous: [] });
const previous: PreviousReplica[] = [...first.services].flatMap(([service, replicas]) => replicas.map(({ ordinal, serverId }) => ({ service, ordinal, serverId })));

console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, load average ${loadavg()[0]!.toFixed(1)}`);
console.log(`${SERVICES} services over ${SERVERS} servers: ${previous.length} replicas placed on ${first.servers.length} servers\n`);

const baseline = time(() => validateCompose(document));
console.log(`baseline, validateCompose of the same document, median of ${RUNS}: ${ms(median(baseline.wall))} wall, ${ms(median(baseline.cpu))} CPU`);
for (const [what, input] of [
  ['first deploy', { ...base, previous: [] }],
  ['redeploy (sticky)', { ...base, previous }],
] as const) {
  const { wall, cpu } = time(() => planPlacement(input));
  const [wallMedian, cpuMedian] = [median(wall), median(cpu)];
  console.log(
    `planPlacement, ${what}, median of ${RUNS}: ${ms(wallMedian)} wall (min ${ms(Math.min(...wall))}, max ${ms(Math.max(...wall))}), ${ms(cpuMedian)} CPU; ` +
      `${(cpuMedian / median(baseline.cpu)).toFixed(1)}x the baseline's CPU; target < ${TARGET_MS} ms: ${wallMedian < TARGET_MS ? 'met' : 'MISSED'}`,
  );
}
