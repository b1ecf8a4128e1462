/**
 * Container logs under load, measured in one run:
 *   bun scripts/bench/logs.ts [--seconds 60] [--containers 200] [--rate 1000]
 *   bun scripts/bench/logs.ts --seconds 300      # the 5-minute memory check
 *
 * One daemon (a child process speaking the real protocol, batching with the agent's own LogQueue
 * and frame encoder) runs `containers` containers of one environment writing `rate` lines a
 * second in total; a client on /ws/client/v1 follows the environment's live logs. Measured on the
 * server process (its own child, so the numbers are the server's alone): CPU (share of one core)
 * and RSS, sampled through the run, and the end-to-end line latency from the moment the daemon
 * read a line to the moment the client got it (the daemon's 200 ms batching included, as the real
 * agent batches).
 *
 * Baseline, in the same run with the same daemon and client: a bare Bun WebSocket relay that
 * parses each frame and forwards its lines to the client (no checks, no storage, no history).
 * Panel does the same plus the slot checks, chunked history in SQLite with its bounds, and the
 * per-push credential check. RSS saws up and down with garbage collection, so memory is judged by
 * its floor: the lowest sample of each minute. It is "flat" when the floors after the first minute
 * grow by less than 1 MiB a minute (a least-squares slope). Nothing is asserted; tests never time.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!, process.argv[i + 1] ?? '');
const SECONDS = Number(args.get('--seconds') ?? 60);
const CONTAINERS = Number(args.get('--containers') ?? 200);
const RATE = Number(args.get('--rate') ?? 1000);
const SERVICES = Math.max(1, Math.min(20, CONTAINERS));
const SAMPLE_MS = 2_000;
const FILLER = 'x'.repeat(60);

interface Setup {
  environmentId: string;
  serverId: string;
  credential: string;
  token: string;
  slots: { serviceId: string; ordinal: number }[];
}

// ---- children ---------------------------------------------------------------------------------

/** The Panel server: the real `serve` on a prepared data directory. */
async function servePanel(dataDir: string, ring: string): Promise<void> {
  const { loadConfig } = await import('../../src/config.ts');
  const { createLogger } = await import('../../src/lib/logger.ts');
  const { serve } = await import('../../src/server.ts');
  const config = loadConfig({ PANEL_DATA_DIR: dataDir, PANEL_SECRETS: ring, PANEL_PORT: '0', PANEL_LOG_LEVEL: 'warn' }, () => ring);
  const running = await serve(config, createLogger('warn'));
  console.log(JSON.stringify({ url: running.url }));
  await new Promise(() => {});
}

/** The baseline: parse each daemon frame and forward its lines to every client, nothing else. */
function serveBaseline(): void {
  const clients = new Set<Bun.ServerWebSocket<{ daemon: boolean }>>();
  const server = Bun.serve<{ daemon: boolean }>({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request, srv) => (srv.upgrade(request, { data: { daemon: new URL(request.url).pathname === '/ws/daemon/v1' } }) ? undefined : new Response('upgrade', { status: 400 })),
    websocket: {
      message(ws, message) {
        const frame = JSON.parse(String(message));
        if (!ws.data.daemon) {
          clients.add(ws);
          ws.send(JSON.stringify({ type: 'subscribed', topic: 'logs', lines: [] }));
        } else if (frame.type === 'hello') ws.send(JSON.stringify({ type: 'welcome', serverId: frame.serverId, features: ['logs'] }));
        else if (frame.type === 'logs') {
          for (const batch of frame.containers as { lines: [number, string, string][] }[]) {
            const text = JSON.stringify({ type: 'logs', topic: 'logs', lines: batch.lines.map(([at, stream, line]) => ({ at: new Date(at).toISOString(), stream, text: line })) });
            for (const client of clients) client.send(text);
          }
        }
      },
      close: (ws) => void clients.delete(ws),
    },
  });
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }));
}

/** One daemon with CONTAINERS containers writing RATE lines a second, batched like the agent. */
async function simulateDaemon(url: string, setup: Setup): Promise<void> {
  const { LogQueue } = await import('../../src/daemon/agent/log-queue.ts');
  const { encodeLogFrames } = await import('../../src/daemon/agent/log-collector.ts');
  const queue = new LogQueue({ ratePerSecond: 1e9, burst: 1e9, maxLines: 200_000, maxBytes: 64 * 1024 * 1024, frameBytes: 160 * 1024 });
  const BunWebSocket = WebSocket as unknown as new (url: string, options: { headers: Record<string, string> }) => WebSocket;
  const socket = new BunWebSocket(`${url.replace('http', 'ws')}/ws/daemon/v1`, { headers: { authorization: `Bearer ${setup.credential}` } });
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () =>
      socket.send(JSON.stringify({ type: 'hello', hostname: 'bench', serverId: setup.serverId, machineId: 'bench-machine', version: 'bench', docker: { version: null, composeVersion: null }, features: ['logs'] }));
    socket.onmessage = (event) => {
      const frame = JSON.parse(String(event.data));
      if (frame.type === 'welcome') resolve();
      else if (frame.type === 'ping') socket.send(JSON.stringify({ type: 'pong', ts: frame.ts }));
    };
    socket.onerror = () => reject(new Error('daemon socket failed'));
  });
  const slots = setup.slots.map(({ serviceId, ordinal }, index) => ({
    containerId: `bench${index}`.padEnd(64, '0'),
    name: `bench-${index}`,
    environmentId: setup.environmentId,
    serviceId,
    role: 'service',
    ordinal,
  }));
  let sequence = 0;
  let due = performance.now();
  setInterval(() => {
    // Lines due since the last tick, spread round-robin over the containers.
    const now = performance.now();
    const count = Math.floor(((now - due) * RATE) / 1000);
    due += (count * 1000) / RATE;
    const at = Date.now();
    for (let i = 0; i < count; i++) {
      const slot = slots[sequence % slots.length]!;
      queue.push(slot, [at, 'stdout', `line ${sequence++} of ${slot.name} ${FILLER}`], `${Math.floor(at / 1000)}.000000000`);
    }
  }, 10);
  setInterval(() => {
    while (!queue.isEmpty && socket.bufferedAmount < 1024 * 1024) for (const text of encodeLogFrames(queue.take().containers)) socket.send(text);
  }, 200);
  console.log(JSON.stringify({ running: true }));
  await new Promise(() => {});
}

// ---- the parent: setup, measurements ----------------------------------------------------------

async function prepare(dataDir: string, ring: string): Promise<Setup> {
  const { loadConfig } = await import('../../src/config.ts');
  const { createDb } = await import('../../src/db/client.ts');
  const { apiToken, container, environment, project, server, service, user, workspace } = await import('../../src/db/schema/index.ts');
  const { hashToken, newOpaqueToken } = await import('../../src/auth/token.ts');
  const { createOrganization } = await import('../../src/domain/organizations/service.ts');
  const { silentLogger } = await import('../../src/lib/logger.ts');
  const { openMigratedDatabase } = await import('../../src/server.ts');
  const sqlite = openMigratedDatabase(loadConfig({ PANEL_DATA_DIR: dataDir, PANEL_SECRETS: ring }, () => ring), silentLogger);
  const db = createDb(sqlite);
  const owner = db.insert(user).values({ email: 'bench@example.test' }).returning().get();
  const organizationId = createOrganization(db, { name: 'Bench', ownerUserId: owner.id }).id;
  const workspaceId = db.insert(workspace).values({ organizationId, name: 'bench' }).returning().get().id;
  const projectId = db.insert(project).values({ organizationId, workspaceId, name: 'bench' }).returning().get().id;
  const environmentId = db.insert(environment).values({ projectId, name: 'bench' }).returning().get().id;
  const credential = newOpaqueToken('pnd');
  const serverId = db.insert(server).values({ organizationId, name: 'bench', machineId: 'bench-machine', credentialHash: hashToken(credential) }).returning().get().id;
  const token = newOpaqueToken('pat');
  db.insert(apiToken).values({ organizationId, userId: owner.id, name: 'bench', role: 'owner', tokenHash: hashToken(token) }).run();
  const slots = db.transaction((tx) => {
    const services = Array.from({ length: SERVICES }, (_, i) => tx.insert(service).values({ environmentId, composeServiceName: `svc${i}` }).returning().get().id);
    return Array.from({ length: CONTAINERS }, (_, i) => {
      const serviceId = services[i % SERVICES]!;
      const ordinal = Math.floor(i / SERVICES) + 1;
      tx.insert(container).values({ serviceId, serverId, containerName: `bench-${i}`, composeServiceName: `svc${i % SERVICES}`, ordinal }).run();
      return { serviceId, ordinal };
    });
  });
  sqlite.close();
  return { environmentId, serverId, credential, token, slots };
}

function spawnChild(childArgs: string[]): { child: Bun.Subprocess<'ignore', 'pipe', 'inherit'>; first: Promise<Record<string, unknown>> } {
  const child = Bun.spawn([process.execPath, import.meta.path, ...childArgs], { stdin: 'ignore', stdout: 'pipe', stderr: 'inherit' });
  const first = (async () => {
    const reader = child.stdout.getReader();
    let text = '';
    while (!text.includes('\n')) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`${childArgs[0]} exited before it was ready`);
      text += new TextDecoder().decode(value);
    }
    return JSON.parse(text.split('\n')[0]!) as Record<string, unknown>;
  })();
  return { child, first };
}

const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** The lowest RSS of each whole minute: what is left after the collector ran. */
function floors(samples: { minutes: number; rss: number }[]): { minutes: number; rss: number }[] {
  const byMinute = new Map<number, number>();
  for (const sample of samples) {
    const minute = Math.floor(sample.minutes);
    byMinute.set(minute, Math.min(byMinute.get(minute) ?? Number.POSITIVE_INFINITY, sample.rss));
  }
  return [...byMinute].map(([minute, rss]) => ({ minutes: minute, rss }));
}

/** Least-squares slope of RSS (MiB) over time (minutes). */
function slope(samples: { minutes: number; rss: number }[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mx = samples.reduce((sum, s) => sum + s.minutes, 0) / n;
  const my = samples.reduce((sum, s) => sum + s.rss, 0) / n;
  const num = samples.reduce((sum, s) => sum + (s.minutes - mx) * (s.rss - my), 0);
  const den = samples.reduce((sum, s) => sum + (s.minutes - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

async function measure(name: string, serverArgs: string[], setup: Setup) {
  const server = spawnChild(serverArgs);
  const { url } = (await server.first) as { url: string };
  const pid = server.child.pid;
  const idleRss = rssMiB(pid);
  const BunWebSocket = WebSocket as unknown as new (url: string, options: { headers: Record<string, string> }) => WebSocket;
  const client = new BunWebSocket(`${url.replace('http', 'ws')}/ws/client/v1`, { headers: { authorization: `Bearer ${setup.token}` } });
  const latencies: number[] = [];
  let received = 0;
  let measuring = false;
  await new Promise<void>((resolve) => {
    client.onopen = () => client.send(JSON.stringify({ type: 'subscribe', topic: 'logs', environmentId: setup.environmentId, tail: 0 }));
    client.onmessage = (event) => {
      const frame = JSON.parse(String(event.data));
      if (frame.type === 'subscribed') resolve();
      if (frame.type !== 'logs' || !measuring) return;
      const now = Date.now();
      for (const line of frame.lines) latencies.push(now - Date.parse(line.at));
      received += frame.lines.length;
    };
  });
  const daemon = spawnChild(['--daemon', url, JSON.stringify(setup)]);
  await daemon.first;
  await Bun.sleep(5_000); // warm-up: JIT, first chunks, prepared statements
  measuring = true;
  const started = performance.now();
  const cpuStart = cpuSeconds(pid);
  const samples: { minutes: number; rss: number }[] = [];
  while (performance.now() - started < SECONDS * 1000) {
    await Bun.sleep(SAMPLE_MS);
    samples.push({ minutes: (performance.now() - started) / 60_000, rss: rssMiB(pid) });
  }
  const wall = (performance.now() - started) / 1000;
  const cpu = (cpuSeconds(pid) - cpuStart) / wall;
  measuring = false;
  client.close();
  daemon.child.kill();
  server.child.kill();
  await Promise.all([daemon.child.exited, server.child.exited]);
  latencies.sort((a, b) => a - b);
  const minuteFloors = floors(samples);
  const afterFirstMinute = minuteFloors.filter((s) => s.minutes >= 1);
  return {
    name,
    idleRss,
    cpu,
    rss: samples.at(-1)?.rss ?? NaN,
    maxRss: Math.max(...samples.map((s) => s.rss)),
    slope: slope(afterFirstMinute.length >= 2 ? afterFirstMinute : minuteFloors),
    floors: minuteFloors,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    linesPerSecond: received / wall,
    samples,
  };
}

async function main(): Promise<void> {
  const { generateKeyRingText } = await import('../../src/crypto/keyring.ts');
  const ring = generateKeyRingText();
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-bench-logs-'));
  const setup = await prepare(dataDir, ring);
  console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; ${CONTAINERS} containers in ${SERVICES} services writing ${RATE} lines/s for ${SECONDS} s per server`);
  const baseline = await measure('bare Bun relay', ['--baseline'], setup);
  const panel = await measure('Panel', ['--panel', dataDir, ring], setup);
  for (const result of [baseline, panel]) {
    console.log(
      `  ${result.name.padEnd(16)} CPU ${fixed(result.cpu * 100)}% of a core, RSS idle ${fixed(result.idleRss)} MiB -> ${fixed(result.rss)} MiB (max ${fixed(result.maxRss)}, ` +
        `floor ${result.slope >= 0 ? '+' : ''}${fixed(result.slope, 2)} MiB/min after the first minute), latency p50 ${fixed(result.p50, 0)} ms p99 ${fixed(result.p99, 0)} ms, ${fixed(result.linesPerSecond, 0)} lines/s delivered`,
    );
  }
  console.log(
    `  Panel / baseline: CPU x${fixed(panel.cpu / baseline.cpu, 2)}, RSS +${fixed(panel.rss - baseline.rss)} MiB, latency p99 +${fixed(panel.p99 - baseline.p99, 0)} ms; ` +
      `memory ${Math.abs(panel.slope) < 1 ? 'flat' : 'NOT flat'} (${fixed(panel.slope, 2)} MiB/min)`,
  );
  console.log(`  Panel RSS floor per minute (MiB): ${panel.floors.map((s) => fixed(s.rss, 0)).join(' ')}`);
  rmSync(dataDir, { recursive: true, force: true });
}

const [mode] = process.argv.slice(2);
if (mode === '--panel') await servePanel(process.argv[3]!, process.argv[4]!);
else if (mode === '--baseline') serveBaseline();
else if (mode === '--daemon') await simulateDaemon(process.argv[3]!, JSON.parse(process.argv[4]!) as Setup);
else await main();
