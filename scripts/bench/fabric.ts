/**
 * The overlay fabric, measured in one run:
 *   bun scripts/bench/fabric.ts            on paper: 3, 50 and 500 servers
 *   bun scripts/bench/fabric.ts --lab      and the time to converge 3 lab hosts (root; the lab)
 *
 * On paper (computed by the allocator and the configuration builder the control plane runs,
 * src/fabric, not by tunnels): for each fleet size, the size of one member's `fabric` command
 * (the frame the hub sends: its whole peer list) and of all of them, how many commands each
 * event queues (the fabric turned on, a server joining, an endpoint changed, a server deleted;
 * counted from the configuration hashes that change, as reconcile counts them), the largest fleet
 * one frame can carry, and the CPU time to compute every configuration. Baseline: the 50-server
 * fleet; the 500-server figures are printed as ratios to it.
 *
 * In the lab (three hosts with their own engines and daemons, wireguard-go): the time from the
 * owner's PATCH turning the fabric on to every server converged in the fabric view. Baseline, in
 * the same lab and run: the same WireGuard setup applied by hand on the three hosts at once (the
 * recipe of fleet-lab.sh's header: wireguard-go, wg set, ip address, ip link), whose time is the
 * floor Panel's delivery, its forward rules, the reports and the view's polling add to (timed
 * inside each host, the slowest counts). Nothing is asserted; it prints.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_FRAME_BYTES } from '../../src/contract/daemon-protocol.ts';
import { allocateMembers, DEFAULT_LISTEN_PORT } from '../../src/fabric/allocate.ts';
import { type FabricMember, fabricConfigHash, fabricConfigs } from '../../src/fabric/config.ts';

const SETTINGS = { meshRange: '10.209.0.0/16', containerRange: '10.210.0.0/16' };
const SIZES = [3, 50, 500];
const BASELINE_SIZE = 50;

const serverId = (i: number) => `01940000-0000-7000-8000-${String(i).padStart(12, '0')}`;
const key = () => randomBytes(32).toString('base64');

function fleet(count: number): FabricMember[] {
  const allocations = allocateMembers(SETTINGS.meshRange, DEFAULT_LISTEN_PORT, [], Array.from({ length: count }, (_, i) => serverId(i)));
  return allocations.map((allocation, i) => ({
    ...allocation,
    publicKey: key(),
    candidates: [`203.0.${Math.floor(i / 250)}.${(i % 250) + 1}`, `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`],
    endpoint: null,
    datacenter: `dc${i % 3}`,
  }));
}

/** The hub's frame for one member's configuration (a realistic command id). */
const frameOf = (config: unknown, hash: string) => JSON.stringify({ type: 'command', id: '01940000-0000-7000-8000-000000000abc', kind: 'fabric', payload: { state: 'up', config, hash } });

/** How many members' configurations differ between two fleets: the commands reconcile queues. */
function commandsBetween(before: readonly FabricMember[], after: readonly FabricMember[]): number {
  const old = new Map([...fabricConfigs(SETTINGS, before)].map(([id, config]) => [id, fabricConfigHash(config)]));
  return [...fabricConfigs(SETTINGS, after)].filter(([id, config]) => old.get(id) !== fabricConfigHash(config)).length;
}

interface PaperFigures {
  size: number;
  frameBytes: number;
  totalBytes: number;
  bytesPerPeer: number;
  on: number;
  join: number;
  endpoint: number;
  deletion: number;
  cpuMs: number;
}

function onPaper(size: number): PaperFigures {
  const members = fleet(size + 1);
  const current = members.slice(0, size);
  const cpu = process.cpuUsage();
  const configs = fabricConfigs(SETTINGS, current);
  const frames = [...configs.values()].map((config) => frameOf(config, fabricConfigHash(config)));
  const used = process.cpuUsage(cpu);
  const frameBytes = Math.max(...frames.map((frame) => Buffer.byteLength(frame)));
  const lonely = Buffer.byteLength(frameOf({ ...configs.get(current[0]!.serverId)!, peers: [] }, 'sha256:'.padEnd(71, '0')));
  const moved = current.map((member, i) => (i === 1 ? { ...member, endpoint: 'moved.example.net' } : member));
  return {
    size,
    frameBytes,
    totalBytes: frames.reduce((sum, frame) => sum + Buffer.byteLength(frame), 0),
    bytesPerPeer: size > 1 ? (frameBytes - lonely) / (size - 1) : 0,
    on: configs.size,
    join: commandsBetween(current, members),
    endpoint: commandsBetween(current, moved),
    deletion: commandsBetween(current, current.slice(1)),
    cpuMs: (used.user + used.system) / 1000,
  };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function printPaper(): void {
  console.log('On paper (src/fabric: allocator and configurations; one fabric command per member whose configuration changes)');
  console.log('servers  command frame  all commands  per peer  on  join  endpoint  delete  CPU to compute');
  const figures = SIZES.map(onPaper);
  for (const f of figures) {
    console.log(
      `${String(f.size).padStart(7)}  ${kib(f.frameBytes).padStart(13)}  ${kib(f.totalBytes).padStart(12)}  ${`${Math.round(f.bytesPerPeer)} B`.padStart(8)}  ${String(f.on).padStart(2)}  ${String(f.join).padStart(4)}  ${String(f.endpoint).padStart(8)}  ${String(f.deletion).padStart(6)}  ${`${f.cpuMs.toFixed(1)} ms`.padStart(14)}`,
    );
  }
  const base = figures.find((f) => f.size === BASELINE_SIZE)!;
  const big = figures.at(-1)!;
  console.log(
    `ratio ${big.size}/${base.size} servers: command frame x${(big.frameBytes / base.frameBytes).toFixed(1)}, all commands x${(big.totalBytes / base.totalBytes).toFixed(1)}, CPU x${(big.cpuMs / base.cpuMs).toFixed(1)}`,
  );
  const perPeer = big.bytesPerPeer;
  console.log(`a frame of ${kib(MAX_FRAME_BYTES)} (MAX_FRAME_BYTES) carries a configuration of up to ${Math.floor((MAX_FRAME_BYTES - (big.frameBytes - perPeer * (big.size - 1))) / perPeer) + 1} servers`);
  console.log('status frames: one per member after each apply, then one a minute (PANEL_DAEMON_FABRIC_STATUS_SECONDS); a deploy queues no fabric command (its networks ride on its own commands)');
}

async function inTheLab(): Promise<void> {
  const { startFleetLab } = await import('../../test/e2e/fleet-lab.ts');
  const { clientApi, completeInstall, freePort } = await import('../../test/e2e/panel-api.ts');
  const { startPanel } = await import('../../test/e2e/process.ts');
  const { TEST_KEY_RING } = await import('../../test/harness.ts');
  const start = await startFleetLab('bench-fabric', 3);
  if (!start.started) {
    console.log(`\nIn the lab: skipped (${start.reason})`);
    return;
  }
  const { lab } = start;
  const main = join(import.meta.dir, '../../src/main.ts');
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-bench-fabric-'));
  const daemons: ReturnType<typeof lab.hosts[number]['spawn']>[] = [];
  let panel: Awaited<ReturnType<typeof startPanel>> | undefined;
  try {
    // Baseline: the recipe by hand on the three hosts at once (its own interface and ports), timed
    // inside each host (entering the lab host is not part of it); the slowest host counts.
    const keys = await Promise.all(lab.hosts.map(async (host) => (await host.exec(['wg', 'genkey'])).stdout.trim()));
    const publics = await Promise.all(lab.hosts.map(async (host, i) => (await host.exec(['sh', '-c', `echo ${keys[i]} | wg pubkey`])).stdout.trim()));
    const inHost = await Promise.all(
      lab.hosts.map(async (host, i) => {
        const peers = lab.hosts.map((peer, j) => (j === i ? '' : `peer ${publics[j]} endpoint ${peer.ip}:${51900 + j} allowed-ips 10.208.0.${j + 1}/32`)).join(' ');
        const script = [
          'started=$(date +%s%N)',
          'wireguard-go wgbench',
          `umask 077; echo ${keys[i]} > /tmp/wgbench-${host.name}.key`,
          `wg set wgbench private-key /tmp/wgbench-${host.name}.key listen-port ${51900 + i} ${peers}`,
          `ip address add 10.208.0.${i + 1}/24 dev wgbench`,
          'ip link set dev wgbench mtu 1420 up',
          'echo $(( ($(date +%s%N) - started) / 1000000 ))',
        ].join('\n');
        const result = await host.exec(['sh', '-ec', script]);
        if (result.exitCode !== 0) throw new Error(`${host.name}: ${result.stderr}`);
        return Number(result.stdout.trim().split('\n').at(-1));
      }),
    );
    const byHandMs = Math.max(...inHost);
    for (const host of lab.hosts) await host.exec(['sh', '-c', `ip link delete dev wgbench; rm -f /tmp/wgbench-${host.name}.key`]);

    const port = freePort();
    const url = `http://${lab.rootIp}:${port}`;
    panel = await startPanel([process.execPath, main, 'serve'], { PANEL_DATA_DIR: dataDir, PANEL_HOST: lab.rootIp, PANEL_PORT: String(port), PANEL_PUBLIC_URL: url, PANEL_SECRETS: TEST_KEY_RING, PANEL_DAEMON_SOCKET: join(dataDir, 'daemon.sock') });
    const session = await completeInstall(url, dataDir);
    const api = (method: string, path: string, body?: unknown) => clientApi(session, method, path, body);
    for (const host of lab.hosts) {
      const token = await api('POST', '/join-tokens', { organizationId: session.organizationId });
      await host.exec([process.execPath, main, 'daemon', 'join', url, '--token', token.json.token]);
      daemons.push(host.spawn([process.execPath, main, 'daemon', 'run']));
    }
    const poll = async (what: string, done: () => Promise<boolean>) => {
      for (const deadline = Date.now() + 120_000; !(await done()); await Bun.sleep(50)) if (Date.now() > deadline) throw new Error(`${what} did not happen in 2 minutes`);
    };
    await poll('three servers with keys', async () => {
      const servers = (await api('GET', `/servers?organizationId=${session.organizationId}`)).json.data as { status: string; wireguardPublicKey: string | null }[];
      return servers.length === 3 && servers.every((server) => server.status === 'connected' && server.wireguardPublicKey);
    });
    const started = performance.now();
    await api('PATCH', `/organizations/${session.organizationId}/fabric`, { enabled: true });
    await poll('three converged', async () => ((await api('GET', `/organizations/${session.organizationId}/fabric`)).json.servers as { state: string }[]).every((server) => server.state === 'converged'));
    const convergedMs = performance.now() - started;
    console.log('\nIn the lab (3 hosts, wireguard-go, load average', (await import('node:os')).loadavg()[0]!.toFixed(1), ')');
    console.log(`by hand (the recipe, 3 hosts at once, timed inside each host; the slowest): ${byHandMs.toFixed(0)} ms`);
    console.log(`Panel, fabric on -> 3 converged:       ${convergedMs.toFixed(0)} ms (x${(convergedMs / byHandMs).toFixed(1)} the recipe by hand)`);
  } finally {
    for (const daemon of daemons) {
      daemon.kill('SIGTERM');
      await daemon.exited;
    }
    if (panel) {
      panel.process.kill('SIGTERM');
      await panel.process.exited;
    }
    await lab.down();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

printPaper();
if (process.argv.includes('--lab')) await inTheLab();
else console.log('\nIn the lab: run with --lab (root; starts three hosts)');
