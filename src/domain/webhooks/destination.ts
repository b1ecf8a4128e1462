/**
 * Where webhooks may go (SSRF): only to addresses the operator allowed, checked at every attempt
 * on the addresses the name resolves to then, and the connection is made to exactly the address
 * that was checked (a name that resolves differently a moment later, DNS rebinding, cannot
 * redirect it). No redirects are followed.
 *
 * PANEL_WEBHOOK_ALLOWED_NETWORKS is a comma-separated list of CIDR ranges and the word `public`
 * (every globally routable unicast address: not loopback, private, link-local, CGNAT, multicast,
 * documentation or other special-purpose ranges, IPv4-mapped and NAT64 forms included). The
 * default is `public`; `none` turns webhooks off. Internal receivers need their range listed.
 */
import { isIP } from 'node:net';

export interface NetworkPolicy {
  public: boolean;
  ranges: Range[];
}

interface Range {
  family: 4 | 6;
  /** The network as a big integer and its prefix length. */
  network: bigint;
  prefix: number;
  text: string;
}

export class DestinationRefused extends Error {
  override name = 'DestinationRefused';
}

/** The policy the text describes, or a message saying what is wrong with it. */
export function parseNetworkPolicy(text: string): NetworkPolicy | string {
  const items = text.split(',').map((item) => item.trim()).filter(Boolean);
  const policy: NetworkPolicy = { public: false, ranges: [] };
  if (items.length === 1 && items[0] === 'none') return policy;
  for (const item of items) {
    if (item === 'public') {
      policy.public = true;
      continue;
    }
    const range = parseRange(item);
    if (!range) return `"${item}" is not a CIDR range (like 10.0.0.0/8 or fd00::/8), "public" or "none"`;
    policy.ranges.push(range);
  }
  return policy;
}

export const webhooksEnabled = (policy: NetworkPolicy) => policy.public || policy.ranges.length > 0;

function parseRange(text: string): Range | null {
  const [address, prefixText] = text.split('/');
  const value = address ? toBigInt(address) : null;
  if (!value) return null;
  const bits = value.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits || (prefixText !== undefined && !/^\d+$/.test(prefixText))) return null;
  return { family: value.family, network: mask(value.value, prefix, bits), prefix, text };
}

const mask = (value: bigint, prefix: number, bits: number) => (prefix === 0 ? 0n : (value >> BigInt(bits - prefix)) << BigInt(bits - prefix));

/** An address as a number: IPv4 in 32 bits, IPv6 in 128 (with an embedded dotted quad allowed). */
function toBigInt(address: string): { family: 4 | 6; value: bigint } | null {
  const family = isIP(address);
  if (family === 4) return { family, value: address.split('.').reduce((sum, part) => (sum << 8n) + BigInt(Number(part)), 0n) };
  if (family !== 6) return null;
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = toBigInt(dotted[1]!)!.value;
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  if (groups.length !== 8) return null;
  return { family: 6, value: groups.reduce((sum, group) => (sum << 16n) + BigInt(parseInt(group || '0', 16)), 0n) };
}

const ranges = (texts: string[]) => texts.map((text) => parseRange(text)!);

/** Special-purpose ranges (IANA registries): never "public". */
const NOT_PUBLIC = ranges([
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24',
  '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
  '::/128', '::1/128', '::ffff:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48', '100::/64', '2001::/23', '2001:db8::/32', '2002::/16',
  'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
]);
const MAPPED_V4 = ranges(['::ffff:0:0/96', '64:ff9b::/96']);

function within(address: { family: 4 | 6; value: bigint }, range: Range): boolean {
  const bits = address.family === 4 ? 32 : 128;
  return address.family === range.family && mask(address.value, range.prefix, bits) === range.network;
}

/** The IPv4 address an IPv4-mapped or NAT64 IPv6 address stands for, else the address itself. */
function unwrap(address: { family: 4 | 6; value: bigint }): { family: 4 | 6; value: bigint } {
  return address.family === 6 && MAPPED_V4.some((range) => within(address, range)) ? { family: 4, value: address.value & 0xffffffffn } : address;
}

export function isPublicAddress(text: string): boolean {
  const parsed = toBigInt(text);
  if (!parsed) return false;
  const address = unwrap(parsed);
  return !NOT_PUBLIC.some((range) => within(address, range));
}

export function isAllowedAddress(text: string, policy: NetworkPolicy): boolean {
  const parsed = toBigInt(text);
  if (!parsed) return false;
  const address = unwrap(parsed);
  if (policy.ranges.some((range) => within(parsed, range) || within(address, range))) return true;
  return policy.public && isPublicAddress(text);
}

/** Refuses a URL that is not plain http(s) to a host (credentials and fragments are refused too). */
export function checkWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DestinationRefused('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DestinationRefused('must be http or https');
  if (url.username || url.password) throw new DestinationRefused('must not carry credentials');
  if (url.hash) throw new DestinationRefused('must not carry a fragment');
  return url;
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;
// node:dns loads at the first lookup, not at start (docs/PERFORMANCE.md).
const systemLookup: Lookup = async (hostname) => (await import('node:dns/promises')).lookup(hostname, { all: true, verbatim: true });

/** The address to connect to: every address the host resolves to must be allowed (one bad answer refuses). */
export async function resolveDestination(url: URL, policy: NetworkPolicy, lookup: Lookup = systemLookup): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  let addresses: { address: string; family: number }[];
  if (literal) addresses = [{ address: host, family: literal }];
  else {
    try {
      addresses = await lookup(host);
    } catch (error) {
      throw new DestinationRefused(`cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  if (addresses.length === 0) throw new DestinationRefused(`${host} has no address`);
  const refused = addresses.find(({ address }) => !isAllowedAddress(address, policy));
  if (refused) throw new DestinationRefused(`${host} resolves to ${refused.address}, outside the networks the operator allows (PANEL_WEBHOOK_ALLOWED_NETWORKS)`);
  const chosen = addresses[0]!;
  return { address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}
