/**
 * The host side of the fabric, through the system's own tools (`ip`, `wg`, `wireguard-go`,
 * `iptables`), every command an argument array (docker-cli.ts's runner), never a shell string.
 * The daemon runs as root. Every step is idempotent: applying the same state twice changes
 * nothing, so a restart, a redelivered command or a drifted host converge alike.
 *
 * The interface: kernel WireGuard where the module exists (`ip link add panelwg type wireguard`),
 * else the userspace `wireguard-go panelwg` (it keeps running on its own, like a kernel link;
 * deleting the link ends it). Keys, port and peers come from `wg syncconf`, which adds, changes
 * and removes peers to match its file, then the address, MTU and the container range's route.
 * The forward and NAT rules are two chains of Panel's own (rules.ts), written whole with
 * `iptables-restore --noflush` and jumped to from DOCKER-USER and POSTROUTING.
 */
import { FABRIC_INTERFACE } from '../../../contract/fabric.ts';
import { type CommandResult, type CommandRunner, lastLine } from '../docker-cli.ts';
import { FILTER_CHAIN, NAT_CHAIN } from './rules.ts';

export type Backend = 'kernel' | 'userspace';

/** A failed host step: `code` for the control plane, the message says what the server needs. */
export class HostNetworkError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HostNetworkError';
  }
}

export interface PeerState {
  publicKey: string;
  endpoint: string | null;
  /** Epoch milliseconds; null before the first handshake. */
  lastHandshakeAt: number | null;
}

export interface InterfaceState {
  backend: Backend;
  publicKey: string | null;
  listenPort: number | null;
  peers: PeerState[];
}

const TIMEOUT_MS = 30_000;
const DOCKER_USER = 'DOCKER-USER';

/** Interfaces whose addresses are no use to another server: loopback, Docker's, the fabric's own. */
const LOCAL_INTERFACES = /^(lo|docker\d*|br-[0-9a-f]+|veth.*|pnf\d+|panelwg|virbr\d*|cni\d*|flannel.*|tailscale\d*|wg\d*)$/;

interface IpAddressInfo {
  ifname: string;
  addr_info?: { family: string; local: string; prefixlen: number; scope: string }[];
}

export class HostNetwork {
  constructor(private readonly run: CommandRunner) {}

  private async must(argv: string[], what: string, code = 'fabric_apply_failed', stdin?: string): Promise<CommandResult> {
    const result = await this.run(argv, { timeoutMs: TIMEOUT_MS, stdin });
    if (result.exitCode !== 0) throw new HostNetworkError(code, `${what}: ${lastLine(result.stderr) || `${argv[0]} exited ${result.exitCode}`}`);
    return result;
  }

  /** How the interface runs now, or null when there is none. */
  async backend(): Promise<Backend | null> {
    const result = await this.run(['ip', '-d', '-j', 'link', 'show', 'dev', FABRIC_INTERFACE], { timeoutMs: TIMEOUT_MS });
    if (result.exitCode !== 0) return null;
    const [link] = JSON.parse(result.stdout) as { linkinfo?: { info_kind?: string } }[];
    return link?.linkinfo?.info_kind === 'wireguard' ? 'kernel' : 'userspace';
  }

  /** The interface, made when missing: kernel WireGuard first, wireguard-go otherwise. */
  async ensureInterface(): Promise<Backend> {
    const current = await this.backend();
    if (current !== null) return current;
    const kernel = await this.run(['ip', 'link', 'add', 'dev', FABRIC_INTERFACE, 'type', 'wireguard'], { timeoutMs: TIMEOUT_MS });
    if (kernel.exitCode === 0) return 'kernel';
    const userspace = await this.run(['wireguard-go', FABRIC_INTERFACE], { timeoutMs: TIMEOUT_MS });
    if (userspace.exitCode === 0 && (await this.backend()) !== null) return 'userspace';
    throw new HostNetworkError(
      'wireguard_unavailable',
      `cannot create the WireGuard interface ${FABRIC_INTERFACE}: the kernel has no WireGuard module (${lastLine(kernel.stderr) || 'ip link add failed'}) and wireguard-go could not run (${lastLine(userspace.stderr) || `exit ${userspace.exitCode}`}). Install wireguard-tools and, without the kernel module, wireguard-go`,
    );
  }

  /** Keys, port and peers exactly as in `configFile` (a `wg` configuration, 0600). */
  async syncPeers(configFile: string): Promise<void> {
    await this.must(['wg', 'syncconf', FABRIC_INTERFACE, configFile], 'wg syncconf', 'fabric_apply_failed');
  }

  /** The interface's one IPv4 address (others removed), its MTU, up, and the container range routed over it. */
  async configureLink(address: string, mtu: number, containerRange: string): Promise<void> {
    const current = await this.addressesOf(FABRIC_INTERFACE);
    if (current.length !== 1 || current[0] !== address) {
      await this.must(['ip', '-4', 'address', 'flush', 'dev', FABRIC_INTERFACE], 'ip address flush');
      await this.must(['ip', '-4', 'address', 'add', address, 'dev', FABRIC_INTERFACE], 'ip address add');
    }
    await this.must(['ip', 'link', 'set', 'dev', FABRIC_INTERFACE, 'mtu', String(mtu), 'up'], 'ip link set');
    await this.must(['ip', '-4', 'route', 'replace', containerRange, 'dev', FABRIC_INTERFACE], 'ip route replace');
    const routes = await this.must(['ip', '-j', '-4', 'route', 'show', 'dev', FABRIC_INTERFACE, 'proto', 'boot'], 'ip route show');
    for (const route of JSON.parse(routes.stdout || '[]') as { dst: string }[]) {
      if (route.dst !== containerRange) await this.must(['ip', '-4', 'route', 'del', route.dst, 'dev', FABRIC_INTERFACE], 'ip route del');
    }
  }

  private async addressesOf(name: string): Promise<string[]> {
    const result = await this.must(['ip', '-j', '-4', 'address', 'show', 'dev', name], 'ip address show');
    const [link] = JSON.parse(result.stdout || '[]') as IpAddressInfo[];
    return (link?.addr_info ?? []).map((info) => `${info.local}/${info.prefixlen}`);
  }

  /** Both chains rewritten from `rules`, and the jumps to them in place (first in their chains). */
  async applyRules(rules: string): Promise<void> {
    // Docker makes DOCKER-USER when it starts; before it has, the chain is made here (Docker keeps it).
    const exists = await this.run(['iptables', '-w', '-n', '-L', DOCKER_USER], { timeoutMs: TIMEOUT_MS });
    if (exists.exitCode !== 0) await this.must(['iptables', '-w', '-N', DOCKER_USER], 'iptables -N DOCKER-USER');
    await this.must(['iptables-restore', '-w', '--noflush'], 'iptables-restore', 'fabric_apply_failed', rules);
    await this.ensureJump('filter', DOCKER_USER, FILTER_CHAIN);
    await this.ensureJump('nat', 'POSTROUTING', NAT_CHAIN);
  }

  private async ensureJump(table: string, from: string, to: string): Promise<void> {
    const check = await this.run(['iptables', '-w', '-t', table, '-C', from, '-j', to], { timeoutMs: TIMEOUT_MS });
    if (check.exitCode !== 0) await this.must(['iptables', '-w', '-t', table, '-I', from, '1', '-j', to], `iptables -I ${from}`);
  }

  /** The interface's key, port and peers as WireGuard has them (`wg show dump`), or null without one. */
  async state(): Promise<InterfaceState | null> {
    const backend = await this.backend();
    if (backend === null) return null;
    const dump = await this.run(['wg', 'show', FABRIC_INTERFACE, 'dump'], { timeoutMs: TIMEOUT_MS });
    if (dump.exitCode !== 0) return { backend, publicKey: null, listenPort: null, peers: [] };
    const [head = '', ...lines] = dump.stdout.trim().split('\n');
    const [, publicKey, listenPort] = head.split('\t');
    const peers = lines.filter(Boolean).map((line): PeerState => {
      const [key = '', , endpoint, , handshake] = line.split('\t');
      const seconds = Number(handshake);
      return { publicKey: key, endpoint: endpoint && endpoint !== '(none)' ? endpoint : null, lastHandshakeAt: seconds > 0 ? seconds * 1000 : null };
    });
    return { backend, publicKey: publicKey && publicKey !== '(none)' ? publicKey : null, listenPort: Number(listenPort) || null, peers };
  }

  /** Everything the fabric made on this host removed: the jumps, both chains, the interface (and its routes). */
  async remove(): Promise<void> {
    for (const [table, from, to] of [
      ['filter', DOCKER_USER, FILTER_CHAIN],
      ['nat', 'POSTROUTING', NAT_CHAIN],
    ] as const) {
      while ((await this.run(['iptables', '-w', '-t', table, '-D', from, '-j', to], { timeoutMs: TIMEOUT_MS })).exitCode === 0);
      await this.run(['iptables', '-w', '-t', table, '-F', to], { timeoutMs: TIMEOUT_MS });
      await this.run(['iptables', '-w', '-t', table, '-X', to], { timeoutMs: TIMEOUT_MS });
    }
    if ((await this.backend()) !== null) await this.must(['ip', 'link', 'delete', 'dev', FABRIC_INTERFACE], 'ip link delete', 'fabric_remove_failed');
  }

  /**
   * Addresses other servers may reach this one at: global addresses of its own interfaces (not
   * loopback, Docker's bridges, container veths or tunnels), IPv4 before IPv6.
   */
  async candidates(): Promise<string[]> {
    const result = await this.run(['ip', '-j', 'address', 'show'], { timeoutMs: TIMEOUT_MS });
    if (result.exitCode !== 0) return [];
    const found: { address: string; v6: boolean }[] = [];
    for (const link of JSON.parse(result.stdout || '[]') as IpAddressInfo[]) {
      if (LOCAL_INTERFACES.test(link.ifname)) continue;
      for (const info of link.addr_info ?? []) {
        if (info.scope !== 'global' || (info.family !== 'inet' && info.family !== 'inet6')) continue;
        found.push({ address: info.local, v6: info.family === 'inet6' });
      }
    }
    return [...found.filter((entry) => !entry.v6), ...found.filter((entry) => entry.v6)].map((entry) => entry.address).slice(0, 32);
  }
}
