/**
 * Ingress speed:
 *   bun scripts/bench/ingress.ts            (the lab parts need root; they say so and are skipped without)
 *
 * 1. Configuration generation: Caddy's JSON for one server serving 1,000 hostings (two hostnames
 *    each, a third with a path prefix, a tenth plain http, library / internal / ACME certificates,
 *    two ready containers per service), from the route payload and the observed containers. The
 *    baseline, in the same run, is the least any generator must do: read the same payload from
 *    JSON and write a document of the same size back. Target: generation under 50 ms.
 * 2. From a deploy's report to the route answering, in the multi-host lab (real engine, real
 *    Caddy): a redeploy recreates the service's container (new address), its deployment turns
 *    succeeded when the daemon's report and result arrive, and then the hosting answers with the
 *    new content through the server's Caddy. Baseline, same run and same Caddy: loading an
 *    equally changed configuration straight into Caddy's admin socket until it answers.
 * 3. Upstreams (how Caddy reaches containers, docs/DECISIONS.md "Ingress"): latency of requests
 *    from the host to a container at its bridge address (what Panel does) against the same
 *    container through a loopback-published port (Docker's userland proxy).
 *
 * Nothing is asserted; it prints. Tests never time (ARCHITECTURE.md §7).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEY_RING } from '../../test/harness.ts';
import { type FleetLab, startFleetLab } from '../../test/e2e/fleet-lab.ts';
import { completeInstall, freePort, type Session } from '../../test/e2e/panel-api.ts';
import { startPanel, stopProcess } from '../../test/e2e/process.ts';
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

const MAIN = join(import.meta.dir, '../../src/main.ts');
const ROUNDS = 5;
const HOSTNAME = 'bench.lab.test';

const service = (greeting: string) =>
  `services:\n  web:\n    image: local/busybox:1\n    command: ["sh", "-c", "mkdir -p /www && echo ${greeting} > /www/index.html && exec httpd -f -p 8080 -h /www"]\n    stop_grace_period: 1s\n`;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    await Bun.sleep(10);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

async function answer(fleet: FleetLab, hostname = HOSTNAME): Promise<string | null> {
  const child = Bun.spawn(['curl', '-fsSk', '--max-time', '2', '--resolve', `${hostname}:443:${fleet.host('h1').ip}`, `https://${hostname}/`], { stdout: 'pipe', stderr: 'ignore' });
  const text = await new Response(child.stdout).text();
  return (await child.exited) === 0 ? text.trim() : null;
}

async function routeAnswering(fleet: FleetLab, state: string): Promise<void> {
  const caddy = Bun.which('caddy');
  if (!caddy) return console.log('report to route answering: skipped (caddy is not installed)');
  await fleet.imageFromBinary('local/caddy:1', caddy);
  const port = freePort();
  const url = `http://${fleet.rootIp}:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-bench-ingress-'));
  const panel = await startPanel([process.execPath, MAIN, 'serve'], {
    PANEL_DATA_DIR: dataDir,
    PANEL_HOST: fleet.rootIp,
    PANEL_PORT: String(port),
    PANEL_PUBLIC_URL: url,
    PANEL_SECRETS: TEST_KEY_RING,
    PANEL_DAEMON_SOCKET: join(dataDir, 'daemon.sock'),
    PANEL_INGRESS_IMAGE: 'local/caddy:1',
  });
  const daemon = fleet.host('h1');
  let daemonProcess: ReturnType<FleetLab['hosts'][number]['spawn']> | undefined;
  try {
    const session: Session = await completeInstall(url, dataDir);
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}/api/client/v1${path}`, {
        method,
        headers: { cookie: session.cookie, origin: url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json().catch(() => undefined)) as any;
    };
    const token = (await api('POST', '/join-tokens', { organizationId: session.organizationId })).token;
    await daemon.exec([process.execPath, MAIN, 'daemon', 'join', url, '--token', token]);
    daemonProcess = daemon.spawn([process.execPath, MAIN, 'daemon', 'run'], { PANEL_LOG_LEVEL: 'warn' });
    const serverId = await until('the daemon to connect', async () => {
      const servers = (await api('GET', `/servers?organizationId=${session.organizationId}`)).data;
      return servers[0]?.status === 'connected' ? (servers[0].id as string) : undefined;
    });
    const workspaceId = (await api('GET', `/workspaces?organizationId=${session.organizationId}`)).data.find((row: any) => row.kind === 'user').id;
    const project = await api('POST', '/projects', { workspaceId, name: 'bench' });
    await api('PUT', `/projects/${project.id}/compose`, { yaml: service('v0') });
    const environmentId = (await api('GET', `/environments?projectId=${project.id}`)).data[0].id;
    await api('PATCH', `/environments/${environmentId}`, { serverId });
    await api('POST', `/environments/${environmentId}/deploy`, {});
    const serviceId = (await api('GET', `/services?environmentId=${environmentId}`)).data[0].id;
    await api('POST', '/hostings', { serviceId, options: { hostnames: [HOSTNAME], targetPort: 8080 } });
    await until('the route to answer', async () => ((await answer(fleet)) === 'v0' ? true : undefined));

    const panelSamples: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await api('PUT', `/projects/${project.id}/compose`, { yaml: service(`v${round}`) });
      const deployed = await api('POST', `/environments/${environmentId}/deploy`, {});
      await until('the deploy report', async () => ((await api('GET', `/deployments/${deployed.id}`)).status === 'succeeded' ? true : undefined));
      const reported = performance.now();
      await until('the new answer', async () => ((await answer(fleet)) === `v${round}` ? true : undefined));
      panelSamples.push(performance.now() - reported);
    }

    // Baseline: the same Caddy, the route's handler swapped for an answer, loaded by hand.
    const ingressProject = readdirSync(join(state, 'h1/panel/var-lib/projects')).find((name) => existsSync(join(state, 'h1/panel/var-lib/projects', name, 'state')))!;
    const inside = `/var/lib/panel-daemon/projects/${ingressProject}/state`;
    const outside = join(state, 'h1/panel/var-lib/projects', ingressProject, 'state');
    const applied = readFileSync(join(outside, 'etc/caddy.json'), 'utf8');
    const baselineSamples: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const config = JSON.parse(applied);
      const route = config.apps.http.servers.https.routes.find((entry: any) => entry.match?.[0]?.host?.includes(HOSTNAME));
      route.handle = [{ handler: 'static_response', body: `base${round}` }];
      const file = join(outside, `bench-${round}.json`);
      writeFileSync(file, JSON.stringify(config));
      const script = [
        't0=$(date +%s%N)',
        `curl -fsS --unix-socket ${inside}/run/admin.sock -H 'content-type: application/json' --data-binary @${inside}/bench-${round}.json http://panel-ingress/load`,
        `until [ "$(curl -sk --resolve ${HOSTNAME}:443:127.0.0.1 https://${HOSTNAME}/)" = "base${round}" ]; do :; done`,
        't1=$(date +%s%N)',
        'echo $(( (t1 - t0) / 1000 ))',
      ].join('; ');
      const result = await daemon.exec(['sh', '-c', script]);
      baselineSamples.push(Number(result.stdout.trim()) / 1000);
    }
    writeFileSync(join(outside, 'bench-restore.json'), applied);
    await daemon.exec(['sh', '-c', `curl -fsS --unix-socket ${inside}/run/admin.sock -H 'content-type: application/json' --data-binary @${inside}/bench-restore.json http://panel-ingress/load`]);

    const [ours, base] = [median(panelSamples), median(baselineSamples)];
    console.log(`deploy report to route answering, median of ${ROUNDS} (samples ${panelSamples.map((value) => value.toFixed(0)).join(', ')} ms):`);
    console.log(`  Panel (report -> observe -> generate -> load -> answer)             ${ours.toFixed(0)} ms`);
    console.log(`  baseline (load by hand -> answer)                                    ${base.toFixed(0)} ms`);
    console.log(`  ratio                                                                ${(ours / base).toFixed(2)}x the baseline`);
  } finally {
    if (daemonProcess) await stopProcess(daemonProcess);
    await stopProcess(panel.process);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Host -> container latency: at its bridge address, and through a loopback-published port. */
async function upstreams(fleet: FleetLab): Promise<void> {
  const host = fleet.host('h1');
  await host.docker('run', '-d', '--name', 'bench-upstream', '-p', '127.0.0.1::8080', 'local/busybox:1', 'sh', '-c', 'mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www');
  try {
    const address = (await host.docker('inspect', '-f', '{{.NetworkSettings.IPAddress}}', 'bench-upstream')).stdout.trim();
    const published = (await host.docker('port', 'bench-upstream', '8080/tcp')).stdout.trim().split('\n')[0]!.split(':').pop();
    const probe = `const n = 400; const time = async (url) => { for (let i = 0; i < 50; i++) await (await fetch(url)).text(); const samples = []; for (let i = 0; i < n; i++) { const t = performance.now(); await (await fetch(url)).text(); samples.push(performance.now() - t); } samples.sort((a, b) => a - b); return samples[n >> 1]; }; console.log(JSON.stringify([await time('http://${address}:8080/'), await time('http://127.0.0.1:${published}/')]));`;
    const result = await host.exec([process.execPath, '-e', probe]);
    const [bridge, proxied] = JSON.parse(result.stdout) as [number, number];
    console.log('host -> container request latency, median of 400 (keep-alive, as Caddy connects):');
    console.log(`  bridge address (Panel's choice)        ${(bridge * 1000).toFixed(0)} us`);
    console.log(`  loopback-published port (docker-proxy) ${(proxied * 1000).toFixed(0)} us   (${(proxied / bridge).toFixed(2)}x)`);
  } finally {
    await host.docker('rm', '-f', 'bench-upstream');
  }
}

console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
generation();
const state = join(process.env.PANEL_E2E_STATE_ROOT ?? '/tmp', 'fleet-lab-bench-ingress');
const lab = await startFleetLab('bench-ingress', 1);
if (!lab.started) {
  console.log(`lab parts skipped: ${lab.reason}`);
} else {
  try {
    await upstreams(lab.lab);
    await routeAnswering(lab.lab, state);
  } finally {
    await lab.lab.down();
  }
}
