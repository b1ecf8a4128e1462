/**
 * The fabric's allocator (ARCHITECTURE.md §8, Fabric): what the control plane hands out, without
 * collisions, and keeps in the database so it is stable across restarts. Pure.
 *
 * - A mesh address per member server: the lowest free address of the organization's mesh range
 *   (never its network or broadcast address), on the server's WireGuard interface.
 * - A WireGuard listen port per member server: the lowest free port from the base (51820), so no
 *   two servers of an organization share one, even behind one NAT address.
 * - A container subnet (a /24) per server per network that spans servers: the lowest free /24
 *   of the organization's container range. Its bridge is named after its index in the range
 *   (`pnf<index>`), which is therefore unique on every server.
 * - A container address per replica in its server's subnet, from .2 up (.1 is the gateway).
 *
 * Everything freed (a server deleted, a network that no longer spans it) is the lowest free
 * again for the next one: addresses are reused after removal. Existing allocations are never
 * moved. Exhaustion is 409 fabric_range_exhausted naming the setting to widen.
 */
import { DomainError } from '../lib/errors.ts';
import { type Cidr, DOCKER_DEFAULT_POOLS, formatAddress, formatCidr, lastAddress, overlaps, PRIVATE_RANGES, parseAddress, parseCidr, size } from './ipv4.ts';

export const DEFAULT_MESH_RANGE = '10.209.0.0/16';
export const DEFAULT_CONTAINER_RANGE = '10.210.0.0/16';
export const DEFAULT_LISTEN_PORT = 51820;
export const SUBNET_PREFIX = 24;
/** The WireGuard interface and the fabric bridges: 1500 less WireGuard's worst case (IPv6 outer header). */
export const FABRIC_MTU = 1420;
/** The first container address of a subnet; .1 is the bridge's gateway. */
const FIRST_CONTAINER_HOST = 2;

export interface MemberAllocation {
  serverId: string;
  /** Dotted quad, without a prefix. */
  meshAddress: string;
  listenPort: number;
}

/** Prefix lengths a range may have: a mesh range holds at least 254 servers, a container range 4 subnets. */
const RANGE_PREFIXES = { mesh: [8, 24], container: [8, 22] } as const;

/**
 * Why `text` cannot be the organization's mesh or container range, or null: it must be a
 * canonical IPv4 prefix inside RFC 1918, clear of Docker's default address pools, of a size
 * RANGE_PREFIXES allows.
 */
export function rangeProblem(text: string, kind: keyof typeof RANGE_PREFIXES): string | null {
  const range = parseCidr(text);
  if (range === null) return 'must be an IPv4 prefix with its host bits zero, like 10.210.0.0/16';
  const [widest, narrowest] = RANGE_PREFIXES[kind];
  if (range.prefix < widest || range.prefix > narrowest) return `must be a /${widest} to a /${narrowest}`;
  if (!PRIVATE_RANGES.some((privateRange) => privateRange.prefix <= range.prefix && overlaps(privateRange, range))) {
    return 'must lie inside a private range (10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16)';
  }
  const pool = DOCKER_DEFAULT_POOLS.find((candidate) => overlaps(candidate, range));
  if (pool) return `overlaps Docker's default address pool ${formatCidr(pool)}, where Docker numbers the networks of every Compose project`;
  return null;
}

/** The two ranges must not overlap: a container address must never be taken for a server's. */
export function rangesOverlap(meshRange: string, containerRange: string): boolean {
  return overlaps(rangeOf(meshRange), rangeOf(containerRange));
}

const rangeOf = (text: string): Cidr => {
  const range = parseCidr(text);
  if (range === null) throw new Error(`not a canonical IPv4 prefix: ${text}`);
  return range;
};

function exhausted(what: string, setting: 'fabricMeshRange' | 'fabricContainerRange'): DomainError {
  return new DomainError('fabric_range_exhausted', `${what}: widen the organization's ${setting}`, setting);
}

/**
 * Allocations for `joining` (in that order) beside `existing` members of the organization: the
 * lowest free mesh address of `meshRange` and the lowest free port from `basePort`.
 */
export function allocateMembers(meshRange: string, basePort: number, existing: readonly MemberAllocation[], joining: readonly string[]): MemberAllocation[] {
  const range = rangeOf(meshRange);
  const addresses = new Set(existing.map((member) => parseAddress(member.meshAddress)));
  const ports = new Set(existing.map((member) => member.listenPort));
  let address = range.base + 1;
  let port = basePort;
  return joining.map((serverId) => {
    while (addresses.has(address)) address++;
    if (address >= lastAddress(range)) throw exhausted(`the mesh range ${meshRange} has no free address for another server`, 'fabricMeshRange');
    while (ports.has(port)) port++;
    if (port > 65535) throw new DomainError('fabric_range_exhausted', `no UDP port from ${basePort} up is free for another server`);
    addresses.add(address);
    ports.add(port);
    return { serverId, meshAddress: formatAddress(address), listenPort: port };
  });
}

/** The number of /24 subnets a container range holds. */
export const subnetCapacity = (containerRange: string) => size(rangeOf(containerRange)) / 2 ** (32 - SUBNET_PREFIX);

/** The /24 at `index` of the range. */
export function subnetAt(containerRange: string, index: number): string {
  return formatCidr({ base: rangeOf(containerRange).base + index * 2 ** (32 - SUBNET_PREFIX), prefix: SUBNET_PREFIX });
}

/** Where a /24 lies in the range (the bridge number), or null when it is not one of its /24s. */
export function subnetIndex(containerRange: string, subnet: string): number | null {
  const range = rangeOf(containerRange);
  const cidr = parseCidr(subnet);
  if (cidr === null || cidr.prefix !== SUBNET_PREFIX || cidr.base < range.base || cidr.base > lastAddress(range)) return null;
  return (cidr.base - range.base) / 2 ** (32 - SUBNET_PREFIX);
}

/** Linux interface names are at most 15 bytes: `pnf` + at most 5 digits (a /8 holds 65536 /24s). */
export const bridgeName = (index: number) => `pnf${index}`;

/** Hands out the lowest free /24s of a container range; `taken` are the subnets in use. */
export class SubnetPool {
  private readonly used: Set<number>;
  private next = 0;
  private readonly capacity: number;

  constructor(
    private readonly containerRange: string,
    taken: Iterable<string>,
  ) {
    this.capacity = subnetCapacity(containerRange);
    this.used = new Set([...taken].map((subnet) => subnetIndex(containerRange, subnet)).filter((index): index is number => index !== null));
  }

  take(): string {
    while (this.used.has(this.next)) this.next++;
    if (this.next >= this.capacity) throw exhausted(`the container range ${this.containerRange} has no free /${SUBNET_PREFIX} for another network`, 'fabricContainerRange');
    this.used.add(this.next);
    return subnetAt(this.containerRange, this.next);
  }
}

/**
 * Container addresses in one subnet, by replica key (`<service>#<ordinal>`): the previous
 * assignment of every key still wanted, the lowest free host number for the others. Answers the
 * host numbers (the last octet) by key, in the order of `wanted`.
 */
export function assignHosts(subnet: string, previous: Readonly<Record<string, number>>, wanted: readonly string[]): Record<string, number> {
  const cidr = rangeOf(subnet);
  const last = size(cidr) - 2;
  const assigned: Record<string, number> = {};
  const used = new Set<number>();
  for (const key of wanted) {
    const host = previous[key];
    if (host !== undefined && host >= FIRST_CONTAINER_HOST && host <= last && !used.has(host)) {
      assigned[key] = host;
      used.add(host);
    }
  }
  let next = FIRST_CONTAINER_HOST;
  for (const key of wanted) {
    if (assigned[key] !== undefined) continue;
    while (used.has(next)) next++;
    if (next > last) throw new DomainError('fabric_range_exhausted', `subnet ${subnet} has no free address for another container on its server`);
    assigned[key] = next;
    used.add(next);
  }
  return Object.fromEntries(wanted.map((key) => [key, assigned[key]!]));
}

/** The address of host number `host` in `subnet`. */
export const hostAddress = (subnet: string, host: number) => formatAddress(rangeOf(subnet).base + host);

/** The gateway (bridge) address of a subnet. */
export const gatewayOf = (subnet: string) => hostAddress(subnet, 1);
