/**
 * The client address the per-address attempt limits (src/domain/identity/rate-limit.ts) and
 * session records use: the socket peer, unless that peer is a proxy named in
 * PANEL_TRUSTED_PROXIES, in which case X-Forwarded-For names the client. Nothing is trusted by
 * default: a header any client can send must not pick its own rate-limit bucket or spoof the
 * address a session records (issue 13 L1).
 *
 * With a trusted peer, X-Forwarded-For is read from the right (the entry the nearest proxy
 * appended) skipping trusted proxies; the first other address is the client. An entry that is
 * not an IP address ends the walk at the last trusted hop. The unix socket has no peer address
 * ("local", never trusted). `app.handle()` without a listening server (tests, benchmarks) is an
 * in-process call, so its peer is the loopback address.
 */
import { BlockList, isIP } from 'node:net';
import type { Server } from 'bun';
import type { Config } from '../../config.ts';
import type { RequestMeta } from '../../domain/identity/context.ts';

const IN_PROCESS_PEER = '127.0.0.1';
const NO_PEER = 'local';

const addresses = new WeakMap<Request, string>();
const blockLists = new WeakMap<readonly string[], BlockList>();

/** `::ffff:192.0.2.1` is 192.0.2.1. */
const plain = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

function trustedList(entries: readonly string[]): BlockList {
  let list = blockLists.get(entries);
  if (!list) {
    list = new BlockList();
    for (const entry of entries) {
      const [address, prefix] = entry.split('/') as [string, string | undefined];
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) list.addAddress(address, family);
      else list.addSubnet(address, Number(prefix), family);
    }
    blockLists.set(entries, list);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** The client behind `peer`, given the X-Forwarded-For header and the trusted proxies. */
export function resolveClientAddress(peer: string | null, forwardedFor: string | null, trustedProxies: readonly string[]): string {
  if (peer === null) return NO_PEER;
  let client = plain(peer);
  if (trustedProxies.length === 0 || forwardedFor === null) return client;
  const list = trustedList(trustedProxies);
  const hops = forwardedFor.split(',').map((hop) => plain(hop.trim()));
  while (isTrusted(list, client) && hops.length > 0) {
    const next = hops.pop()!;
    if (isIP(next) === 0) break;
    client = next;
  }
  return client;
}

/** Called once per request, before any route: remembers the client address. */
export function assignClientAddress(request: Request, server: Server<unknown> | null | undefined, config: Pick<Config, 'trustedProxies'>): void {
  const peer = server ? (server.requestIP(request)?.address ?? null) : IN_PROCESS_PEER;
  addresses.set(request, resolveClientAddress(peer, request.headers.get('x-forwarded-for'), config.trustedProxies));
}

export const clientAddressOf = (request: Request): string => addresses.get(request) ?? NO_PEER;

export function requestMeta(request: Request): RequestMeta {
  return { address: clientAddressOf(request), userAgent: request.headers.get('user-agent') };
}
