/**
 * Every member server's WireGuard configuration, computed by the control plane from the
 * organization's fabric settings and its members (keys and candidate endpoints the daemons
 * reported, endpoints and datacenters the admins set), and the hash both sides compare: the
 * control plane keeps the hash it sent, the daemon reports the hash of what it applied, and the
 * member is converged when the two are equal. Pure.
 *
 * The mesh is full: every member peers with every other. A peer's endpoint, as seen from a
 * member, is the peer's admin-set endpoint, else (both in one datacenter) its first private
 * candidate, else its first public IPv4 candidate, then IPv6, then any; none when it reported
 * none (it still reaches the member, whose endpoint WireGuard then learns from the handshake).
 * The configuration holds no private key: each daemon keeps its own.
 */
import { createHash } from 'node:crypto';
import type { FabricConfig, FabricPeer } from '../contract/fabric.ts';
import { FABRIC_MTU } from './allocate.ts';
import { isPrivateAddress, parseAddress, parseCidr } from './ipv4.ts';

export type { FabricConfig, FabricPeer } from '../contract/fabric.ts';

export interface FabricSettings {
  meshRange: string;
  containerRange: string;
}

/** What the control plane knows of one member server. */
export interface FabricMember {
  serverId: string;
  publicKey: string;
  meshAddress: string;
  listenPort: number;
  /** Addresses the daemon reported it can be reached at, in its order. */
  candidates: readonly string[];
  /** Set by an admin: `host`, `host:port` or `[v6]:port`; wins over the candidates. */
  endpoint: string | null;
  /** Set by an admin: members with the same one prefer each other's private addresses. */
  datacenter: string | null;
}

/** private: RFC 1918, shared address space, IPv6 unique local (fc00::/7); else public. */
export function candidateKind(address: string): 'private' | 'public-ipv4' | 'public-ipv6' {
  const v4 = parseAddress(address);
  if (v4 !== null) return isPrivateAddress(v4) ? 'private' : 'public-ipv4';
  return /^f[cd]/i.test(address) ? 'private' : 'public-ipv6';
}

const withPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** `host`, `host:port`, `[v6]` or `[v6]:port` → host and port (the listen port when absent). */
export function endpointWithPort(endpoint: string, listenPort: number): string {
  if (endpoint.startsWith('[')) return endpoint.includes(']:') ? endpoint : `${endpoint}:${listenPort}`;
  return /:\d+$/.test(endpoint) ? endpoint : `${endpoint}:${listenPort}`;
}

/** A member's addresses by kind, worked out once per member rather than once per pair. */
interface Reachable {
  /** The admin's endpoint with its port. */
  endpoint: string | null;
  private?: string;
  publicV4?: string;
  publicV6?: string;
  first?: string;
}

function reachableOf(member: FabricMember): Reachable {
  const reach: Reachable = { endpoint: member.endpoint === null ? null : endpointWithPort(member.endpoint, member.listenPort) };
  for (const candidate of member.candidates) {
    const address = withPort(candidate, member.listenPort);
    reach.first ??= address;
    const kind = candidateKind(candidate);
    if (kind === 'private') reach.private ??= address;
    else if (kind === 'public-ipv4') reach.publicV4 ??= address;
    else reach.publicV6 ??= address;
  }
  return reach;
}

function endpointBetween(from: FabricMember, to: FabricMember, reach: Reachable): string | null {
  if (reach.endpoint !== null) return reach.endpoint;
  const sameDatacenter = from.datacenter !== null && from.datacenter === to.datacenter;
  return (sameDatacenter ? reach.private : undefined) ?? reach.publicV4 ?? reach.publicV6 ?? reach.first ?? null;
}

/** Where `from` sends to `to`, or null when `to` reported nothing to reach it at. */
export function chooseEndpoint(from: FabricMember, to: FabricMember): string | null {
  return endpointBetween(from, to, reachableOf(to));
}

/** The configuration of every member, by server id; peers in server id order. */
export function fabricConfigs(settings: FabricSettings, members: readonly FabricMember[]): Map<string, FabricConfig> {
  const meshPrefix = parseCidr(settings.meshRange)!.prefix;
  const sorted = [...members].sort((a, b) => (a.serverId < b.serverId ? -1 : a.serverId > b.serverId ? 1 : 0));
  const reach = sorted.map(reachableOf);
  return new Map(
    sorted.map((member) => [
      member.serverId,
      {
        address: `${member.meshAddress}/${meshPrefix}`,
        listenPort: member.listenPort,
        mtu: FABRIC_MTU,
        containerRange: settings.containerRange,
        peers: sorted.flatMap((peer, i): FabricPeer[] =>
          peer === member ? [] : [{ serverId: peer.serverId, publicKey: peer.publicKey, meshAddress: peer.meshAddress, endpoint: endpointBetween(member, peer, reach[i]!) }],
        ),
      },
    ]),
  );
}

/**
 * The hash of a configuration: `sha256:<hex>` of its JSON with the fields in one fixed order
 * (rebuilt here, so the order the object came in never changes the hash).
 */
export function fabricConfigHash(config: FabricConfig): string {
  const { address, listenPort, mtu, containerRange } = config;
  const peers = config.peers.map(({ serverId, publicKey, meshAddress, endpoint }) => ({ serverId, publicKey, meshAddress, endpoint }));
  return `sha256:${createHash('sha256').update(JSON.stringify({ address, listenPort, mtu, containerRange, peers })).digest('hex')}`;
}
