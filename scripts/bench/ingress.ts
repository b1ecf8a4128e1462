/**
 * Ingress speed:
 *   bun scripts/bench/ingress.ts
 *
 * Configuration generation: Caddy's JSON for one server serving 1,000 hostings (two hostnames
 * each, a third with a path prefix, a tenth plain http, library / internal / ACME certificates,
 * two ready containers per service), from the route payload and the observed containers. The
 * baseline, in the same run, is the least any generator must do: read the same payload from JSON
 * and write a document of the same size back. Target: generation under 50 ms.
 *
 * Nothing is asserted; it prints. Tests never time (ARCHITECTURE.md §7).
 */
import { loadavg } from 'node:os';
import { generateCaddyConfig, type IngressLayout, type ObservedContainer } from '../../src/ingress/caddy-config.ts';
import type { IngressPayload, IngressRoute } from '../../src/contract/ingress.ts';

const HOSTINGS = 1000;
const RUNS = 25;
const TARGET_MS = 50;

const id = (group: number, n: number) => `01940000-0000-7000-8${String(group).padStart(3, '0')}-${String(n).padStart(12, '0')}`;

function payload(): Pick<IngressPayload, 'routes' | 'certificates' | 'acme'> {
  const certificates = Array.from({ length: 20 }, (_, n) => ({ id: id(3, n), certificate: '-----BEGIN CERTIFICATE-----', key: 'pndaemon.v1.x', names: [`*.lib${n}.example.test`] }));
  const routes: IngressRoute[] = [];
  for (let i = 0; i < HOSTINGS; i++) {
    const tls: IngressRoute['tls'] = i % 10 === 0 ? { kind: 'none' } : i % 3 === 0 ? { kind: 'acme' } : i % 7 === 0 ? { kind: 'library', certificateId: id(3, i % 20) } : { kind: 'internal' };
    routes.push({
      hostingId: id(1, i),
      serviceId: id(2, i),
      hostnames: tls.kind === 'library' ? [`app${i}.lib${i % 20}.example.test`, `www${i}.lib${i % 20}.example.test`] : [`app${i}.example.test`, `www.app${i}.example.test`],
      pathPrefix: i % 3 === 1 ? `/api/v${i % 4}` : null,
      targetPort: 8080,
      bind: 'public',
      tls,
    });
  }
  return { routes, certificates, acme: { directoryUrl: 'https://acme.example.test/dir', email: 'ops@example.test', directoryRoots: null } };
}

function observed(): ObservedContainer[] {
  const containers: ObservedContainer[] = [];
  for (let i = 0; i < HOSTINGS; i++) {
    for (let n = 1; n <= 2; n++) {
      containers.push({ serviceId: id(2, i), name: `${id(2, i)}-${n}`, address: `172.${16 + (i % 16)}.${n}.${i % 250}`, exposedPorts: [8080], ready: true, condition: 'running' });
    }
  }
  return containers;
}

const layout: IngressLayout = {
  adminSocket: '/run/panel-ingress/admin.sock',
  storage: '/data/caddy',
  certificatesLog: '/var/log/panel-ingress/certificates.log',
  libraryFiles: new Map(Array.from({ length: 20 }, (_, n) => [id(3, n), { certificate: `/etc/panel-ingress/files/${n}.crt`, key: `/etc/panel-ingress/files/${n}.key` }])),
  directoryRootsFile: null,
  authorityName: 'bench',
};

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function measure(run: () => unknown): number[] {
  const samples: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const start = performance.now();
    run();
    if (i >= 3) samples.push(performance.now() - start); // the first runs warm the JIT
  }
  return samples;
}

function generation(): void {
  const input = payload();
  const containers = observed();
  const inputJson = JSON.stringify({ input, containers });
  const output = JSON.stringify(generateCaddyConfig(input, containers, layout).config);
  const generate = measure(() => JSON.stringify(generateCaddyConfig(input, containers, layout).config));
  // Baseline: parse the input and write back as many bytes as the configuration has.
  const copy = measure(() => {
    const parsed = JSON.parse(inputJson);
    return JSON.stringify(parsed).padEnd(output.length, ' ');
  });
  const generated = median(generate);
  const baseline = median(copy);
  console.log(`configuration for ${HOSTINGS} hostings (${(output.length / 1024).toFixed(0)} KiB of JSON), median of ${RUNS}:`);
  console.log(`  generate + serialize   ${generated.toFixed(2)} ms   (target < ${TARGET_MS} ms: ${generated < TARGET_MS ? 'met' : 'MISSED'})`);
  console.log(`  baseline (JSON in/out) ${baseline.toFixed(2)} ms`);
  console.log(`  ratio                  ${(generated / baseline).toFixed(2)}x the baseline`);
}

console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
generation();
