/**
 * The daemon's fabric agent against a scripted host (the real tools run in the multi-host lab,
 * test/e2e/fleet-fabric.test.ts): the exact argument arrays, idempotent re-applies, what is kept
 * on disk and restored after a reboot, deploys attaching their networks, and `down`.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FabricConfig, FabricNetwork, FabricStatus } from '../../../contract/fabric.ts';
import type { CommandFrame } from '../../../contract/daemon-protocol.ts';
import { createLogger } from '../../../lib/logger.ts';
import type { CommandResult, RunOptions } from '../docker-cli.ts';
import { FabricAgent } from './fabric-agent.ts';
import { HostNetwork } from './host-network.ts';
import { publicKeyOf } from './keys.ts';

const PEER = '01940000-0000-7000-8000-0000000000a2';
const CONFIG: FabricConfig = {
  address: '10.209.0.1/16',
  listenPort: 51820,
  mtu: 1420,
  containerRange: '10.210.0.0/16',
  peers: [{ serverId: PEER, publicKey: `${'b'.repeat(42)}A=`, meshAddress: '10.209.0.2', endpoint: '198.18.0.12:51821' }],
};
const HASH = `sha256:${'1'.repeat(64)}`;
const NETWORKS: FabricNetwork[] = [{ network: 'mesh', bridge: 'pnf1', subnet: '10.210.1.0/24', internal: false, peers: [{ serverId: PEER, subnet: '10.210.2.0/24' }] }];

const ok = (stdout = ''): CommandResult => ({ exitCode: 0, stdout, stderr: '' });
const fail = (stderr: string): CommandResult => ({ exitCode: 1, stdout: '', stderr });

/** A host with no WireGuard kernel module: the interface comes from wireguard-go; records every call. */
class FakeHost {
  readonly calls: string[] = [];
  readonly stdin: string[] = [];
  link = false;
  address: string | null = null;
  jumps = new Set<string>();
  publicKey: string | null = null;
  routes = ['10.99.0.0/16'];

  run = async (argv: readonly string[], options: RunOptions = {}): Promise<CommandResult> => {
    const line = argv.join(' ');
    this.calls.push(line);
    if (options.stdin !== undefined) this.stdin.push(options.stdin);
    switch (true) {
      case line === 'ip -d -j link show dev panelwg':
        return this.link ? ok('[{"ifname":"panelwg","linkinfo":{"info_kind":"tun"}}]') : fail('Device "panelwg" does not exist.');
      case line === 'ip link add dev panelwg type wireguard':
        return fail('Error: Unknown device type.');
      case line === 'wireguard-go panelwg':
        this.link = true;
        return ok();
      case line.startsWith('wg syncconf panelwg '):
        this.publicKey = publicKeyOf(/PrivateKey = (\S+)/.exec(await readFile(argv[3]!, 'utf8'))![1]!);
        return ok();
      case line === 'ip -j -4 address show dev panelwg':
        return ok(JSON.stringify([{ ifname: 'panelwg', addr_info: this.address ? [{ family: 'inet', local: this.address.split('/')[0], prefixlen: Number(this.address.split('/')[1]), scope: 'global' }] : [] }]));
      case line.startsWith('ip -4 address add '):
        this.address = argv[4]!;
        return ok();
      case line.startsWith('ip -4 route replace '):
        if (!this.routes.includes(argv[4]!)) this.routes.push(argv[4]!);
        return ok();
      case line.startsWith('ip -4 route del '):
        this.routes = this.routes.filter((route) => route !== argv[4]);
        return ok();
      case line.startsWith('ip -j -4 route show'):
        return ok(JSON.stringify(this.routes.map((dst) => ({ dst }))));
      case line.startsWith('iptables -w -t ') && argv[4] === '-C':
        return this.jumps.has(`${argv[3]} ${argv[5]} ${argv[7]}`) ? ok() : fail('Bad rule');
      case line.startsWith('iptables -w -t ') && argv[4] === '-I':
        this.jumps.add(`${argv[3]} ${argv[5]} ${argv[8]}`);
        return ok();
      case line.startsWith('iptables -w -t ') && argv[4] === '-D':
        return this.jumps.delete(`${argv[3]} ${argv[5]} ${argv[7]}`) ? ok() : fail('Bad rule');
      case line === 'wg show panelwg dump':
        return ok(`PRIVATE\t${this.publicKey}\t51820\toff\n${'b'.repeat(42)}A=\t(none)\t198.18.0.12:51821\t10.209.0.2/32\t1700000000\t10\t20\t25\n`);
      case line === 'ip link delete dev panelwg':
        this.link = false;
        return ok();
      case line === 'ip -j address show':
        return ok(
          JSON.stringify([
            { ifname: 'lo', addr_info: [{ family: 'inet', local: '127.0.0.1', prefixlen: 8, scope: 'host' }] },
            { ifname: 'eth0', addr_info: [{ family: 'inet6', local: '2001:db8::1', prefixlen: 64, scope: 'global' }, { family: 'inet', local: '198.18.0.11', prefixlen: 24, scope: 'global' }] },
            { ifname: 'docker0', addr_info: [{ family: 'inet', local: '172.17.0.1', prefixlen: 16, scope: 'global' }] },
            { ifname: 'pnf1', addr_info: [{ family: 'inet', local: '10.210.1.1', prefixlen: 24, scope: 'global' }] },
          ]),
        );
      default:
        return ok();
    }
  };
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function setup(stateDir?: string, host = new FakeHost()) {
  const dir = stateDir ?? (await mkdtemp(join(tmpdir(), 'panel-fabric-')));
  if (!stateDir) dirs.push(dir);
  const sent: FabricStatus[] = [];
  const agent = await FabricAgent.open({ stateDir: dir, host: new HostNetwork(host.run), logger: createLogger('error', () => {}), send: (status) => sent.push(status) > 0, now: () => 1_000 });
  return { agent, host, dir, sent };
}

const fabricCommand = (payload: object) => ({ type: 'command', id: 'cmd-f1', kind: 'fabric', payload }) as Extract<CommandFrame, { kind: 'fabric' }>;

describe('fabric commands', () => {
  test('up: the interface (wireguard-go without the kernel module), peers, address, MTU, route, rules and jumps, as argument arrays', async () => {
    const { agent, host } = await setup();
    const outcome = await agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    expect(outcome).toEqual({ report: null, result: { ok: true, data: { appliedHash: HASH } } });
    const wgConf = host.calls.find((call) => call.startsWith('wg syncconf'))!.split(' ')[3]!;
    expect(host.calls.slice(0, 18)).toEqual([
      'ip -d -j link show dev panelwg',
      'ip link add dev panelwg type wireguard',
      'wireguard-go panelwg',
      'ip -d -j link show dev panelwg',
      `wg syncconf panelwg ${wgConf}`,
      'ip -j -4 address show dev panelwg',
      'ip -4 address flush dev panelwg',
      'ip -4 address add 10.209.0.1/16 dev panelwg',
      'ip link set dev panelwg mtu 1420 up',
      'ip -4 route replace 10.210.0.0/16 dev panelwg',
      'ip -j -4 route show dev panelwg proto boot',
      'ip -4 route del 10.99.0.0/16 dev panelwg',
      'iptables -w -n -L DOCKER-USER',
      'iptables-restore -w --noflush',
      'iptables -w -t filter -C DOCKER-USER -j PANEL-FABRIC',
      'iptables -w -t filter -I DOCKER-USER 1 -j PANEL-FABRIC',
      'iptables -w -t nat -C POSTROUTING -j PANEL-FABRIC-NAT',
      'iptables -w -t nat -I POSTROUTING 1 -j PANEL-FABRIC-NAT',
    ]);
    // The configuration file holds the private key: 0600, like every file of the fabric's.
    expect((await stat(wgConf)).mode & 0o777).toBe(0o600);
    expect(await readFile(wgConf, 'utf8')).toContain(`[Peer]\nPublicKey = ${'b'.repeat(42)}A=\nAllowedIPs = 10.209.0.2/32\n`);
  });

  test('applying the same state again changes nothing on the host', async () => {
    const { agent, host } = await setup();
    await agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    host.calls.length = 0;
    await agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    expect(host.calls.filter((call) => /link add|wireguard-go|address (flush|add)|-I |route del/.test(call))).toEqual([]);
  });

  test('the status: key, addresses worth reaching (IPv4 first, no Docker or loopback), the hash in place, handshakes', async () => {
    const { agent, sent } = await setup();
    const before = await agent.status();
    expect(before).toEqual({ publicKey: agent.publicKey, candidates: ['198.18.0.11', '2001:db8::1'], backend: null, appliedHash: null, error: null, peers: [] });
    await agent.execute(fabricCommand({ state: 'up', config: { ...CONFIG, peers: CONFIG.peers }, hash: HASH }));
    await Bun.sleep(0);
    const after = sent.at(-1)!;
    expect(after.backend).toBe('userspace');
    expect(after.appliedHash).toBe(HASH);
    expect(after.peers).toEqual([{ publicKey: `${'b'.repeat(42)}A=`, lastHandshakeAt: 1_700_000_000_000, endpoint: '198.18.0.12:51821' }]);
  });

  test('a failure is the command’s error and the status’s, with what the server needs', async () => {
    const host = new FakeHost();
    const original = host.run;
    host.run = async (argv, options) => (argv[0] === 'wireguard-go' ? { exitCode: 127, stdout: '', stderr: 'wireguard-go: not found' } : original(argv, options));
    const { agent } = await setup(undefined, host);
    const outcome = await agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    expect(outcome.result).toMatchObject({ ok: false, error: { code: 'wireguard_unavailable' } });
    expect((outcome.result as { error: { message: string } }).error.message).toContain('Install wireguard-tools and, without the kernel module, wireguard-go');
    expect((await agent.status()).error?.code).toBe('wireguard_unavailable');
  });

  test('rotate-key: a new pair on disk (0600) and on the interface, the configuration kept, the new public key reported and kept across a restart', async () => {
    const { agent, host, dir, sent } = await setup();
    await agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    const oldKey = agent.publicKey;
    const outcome = await agent.execute(fabricCommand({ state: 'rotate-key' }));
    expect(agent.publicKey).not.toBe(oldKey);
    expect(outcome.result).toEqual({ ok: true, data: { publicKey: agent.publicKey } });
    expect(host.publicKey).toBe(agent.publicKey);
    const keyFile = join(dir, 'fabric', 'private.key');
    expect(publicKeyOf((await readFile(keyFile, 'utf8')).trim())).toBe(agent.publicKey);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    await Bun.sleep(0);
    expect(sent.at(-1)).toMatchObject({ publicKey: agent.publicKey, appliedHash: HASH });
    expect((await setup(dir)).agent.publicKey).toBe(agent.publicKey);
  });

  test('rotate-key without a configuration: only the key changes, nothing on the host', async () => {
    const { agent, host } = await setup();
    const oldKey = agent.publicKey;
    expect((await agent.execute(fabricCommand({ state: 'rotate-key' }))).result).toMatchObject({ ok: true });
    expect(agent.publicKey).not.toBe(oldKey);
    expect(host.calls.filter((call) => !call.includes('show'))).toEqual([]);
  });

  test('down: the jumps, both chains and the interface go; nothing is restored afterwards', async () => {
    const { agent, host, dir } = await setup();
    await agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    host.calls.length = 0;
    expect((await agent.execute(fabricCommand({ state: 'down' }))).result).toEqual({ ok: true, data: { appliedHash: null } });
    expect(host.calls.filter((call) => !call.includes('show') && !call.startsWith('ip -d'))).toEqual([
      'iptables -w -t filter -D DOCKER-USER -j PANEL-FABRIC',
      'iptables -w -t filter -D DOCKER-USER -j PANEL-FABRIC',
      'iptables -w -t filter -F PANEL-FABRIC',
      'iptables -w -t filter -X PANEL-FABRIC',
      'iptables -w -t nat -D POSTROUTING -j PANEL-FABRIC-NAT',
      'iptables -w -t nat -D POSTROUTING -j PANEL-FABRIC-NAT',
      'iptables -w -t nat -F PANEL-FABRIC-NAT',
      'iptables -w -t nat -X PANEL-FABRIC-NAT',
      'ip link delete dev panelwg',
    ]);
    const again = await setup(dir);
    await again.agent.restore();
    expect(again.host.calls).toEqual([]);
  });
});

describe('deploys and restarts', () => {
  test('a spanning network needs the fabric; attached, its peer subnets are allowed and admitted; detached, they go', async () => {
    const { agent, host } = await setup();
    await expect(agent.attach('pn-shop', NETWORKS)).rejects.toMatchObject({ code: 'fabric_not_ready' });
    await agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    await agent.attach('pn-shop', NETWORKS);
    expect(host.stdin.at(-1)).toContain('-A PANEL-FABRIC -i panelwg -o pnf1 -s 10.210.2.0/24 -d 10.210.1.0/24 -j ACCEPT');
    await agent.detach('pn-shop');
    expect(host.stdin.at(-1)).not.toContain('pnf1');
    host.calls.length = 0;
    await agent.detach('pn-shop');
    expect(host.calls).toEqual([]);
  });

  test('after a reboot (no interface), a new daemon restores the configuration with the projects’ networks', async () => {
    const first = await setup();
    await first.agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    await first.agent.attach('pn-shop', NETWORKS);
    const rebooted = await setup(first.dir);
    expect(rebooted.agent.publicKey).toBe(first.agent.publicKey);
    await rebooted.agent.restore();
    expect(rebooted.host.calls).toContain('wireguard-go panelwg');
    expect(rebooted.host.stdin.at(-1)).toContain('-o pnf1');
    const wgConf = rebooted.host.calls.find((call) => call.startsWith('wg syncconf'))!.split(' ')[3]!;
    expect(await readFile(wgConf, 'utf8')).toContain('AllowedIPs = 10.209.0.2/32, 10.210.2.0/24');
  });

  test('the minute’s check applies again when the interface was deleted, then reports', async () => {
    const { agent, host, sent } = await setup();
    await agent.execute(fabricCommand({ state: 'up', config: CONFIG, hash: HASH }));
    host.link = false;
    host.calls.length = 0;
    await agent.check();
    expect(host.calls).toContain('wireguard-go panelwg');
    expect(sent.at(-1)!.appliedHash).toBe(HASH);
  });
});
