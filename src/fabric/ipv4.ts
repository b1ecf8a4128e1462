/**
 * IPv4 addresses and prefixes as unsigned 32-bit numbers: what the fabric's allocator, its
 * range checks and the daemon's endpoint choice need. Pure and browser-safe.
 */

export interface Cidr {
  /** The network address (host bits zero). */
  base: number;
  prefix: number;
}

const OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** `10.0.0.1` → its number, or null when it is not a dotted quad of decimal octets. */
export function parseAddress(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => OCTET.test(part))) return null;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

export function formatAddress(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** `10.210.0.0/16` → its parts, or null unless canonical (host bits zero, prefix 0-32). */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const base = parseAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (base === null || !/^(3[0-2]|[12]?\d)$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return (base & hostMask(prefix)) === 0 ? { base, prefix } : null;
}

export const formatCidr = (cidr: Cidr) => `${formatAddress(cidr.base)}/${cidr.prefix}`;

/** The host bits of a prefix length as a number (0 for /32). */
const hostMask = (prefix: number) => (prefix === 0 ? 0xffffffff : (2 ** (32 - prefix) - 1) >>> 0);

export const size = (cidr: Cidr) => 2 ** (32 - cidr.prefix);

export const lastAddress = (cidr: Cidr) => cidr.base + size(cidr) - 1;

export function contains(cidr: Cidr, address: number): boolean {
  return address >= cidr.base && address <= lastAddress(cidr);
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  return a.base <= lastAddress(b) && b.base <= lastAddress(a);
}

const cidr = (text: string) => parseCidr(text)!;

/** RFC 1918: where a fabric range must lie. */
export const PRIVATE_RANGES: readonly Cidr[] = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'].map(cidr);

/**
 * Docker's default address pools (`default-address-pools`: 172.17.0.0/16 through
 * 172.31.0.0/16, then 192.168.0.0/16 in /20s): a fabric range there would collide with the
 * bridges Docker makes for every Compose project.
 */
export const DOCKER_DEFAULT_POOLS: readonly Cidr[] = [
  ...Array.from({ length: 15 }, (_, i) => cidr(`172.${17 + i}.0.0/16`)),
  cidr('192.168.0.0/16'),
];

/** Shared address space (RFC 6598), where Tailscale and carrier NAT number their peers. */
export const SHARED_ADDRESS_SPACE = cidr('100.64.0.0/10');

/** Addresses a server's private interfaces carry: RFC 1918 and the shared address space. */
export function isPrivateAddress(address: number): boolean {
  return PRIVATE_RANGES.some((range) => contains(range, address)) || contains(SHARED_ADDRESS_SPACE, address);
}
