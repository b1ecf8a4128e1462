/**
 * The live part of a hosting answer: its URLs and, per server running its service, whether the
 * server's ingress applied the route (or why not) and where each hostname's certificate stands.
 */
import type { HostingLive } from '../../../contract/hostings.ts';
import type { Hosting } from '../../../db/schema/index.ts';
import type { HostingLiveState } from '../../../domain/ingress/state.ts';
import { isoOrNull } from '../../present.ts';

interface RoutingOptions {
  hostnames?: string[];
  pathPrefix?: string;
  tls?: string;
}

/** The URLs of an http hosting (wildcards as written, no link can open them). */
export function urlsOf(row: Hosting): string[] {
  if ((row.protocol ?? 'http') !== 'http') return [];
  const options = (row.options ?? {}) as RoutingOptions;
  const scheme = options.tls === 'none' && !row.tlsId ? 'http' : 'https';
  const path = options.pathPrefix ?? '/';
  return (options.hostnames ?? []).map((hostname) => `${scheme}://${hostname.toLowerCase()}${path}`);
}

export function presentLive(row: Hosting, state: HostingLiveState | undefined): HostingLive {
  return {
    urls: urlsOf(row),
    servers: (state?.servers ?? []).map((entry) => ({
      serverId: entry.serverId,
      serverName: entry.serverName,
      route: entry.status,
      error: entry.error,
      upstreams: entry.upstreams,
      containers: entry.containers,
      problem: entry.problem,
      reportedAt: isoOrNull(entry.reportedAt),
    })),
    certificates: (state?.certificates ?? []).map((entry) => ({
      serverId: entry.serverId,
      serverName: entry.serverName,
      hostname: entry.hostname,
      source: entry.source,
      status: entry.status,
      error: entry.error,
      issuer: entry.issuer,
      notAfter: isoOrNull(entry.notAfter),
    })),
  };
}
