/**
 * The live part of a hosting answer: its URLs and, per server running its service, whether the
 * server's ingress applied the route (or why not) and where each hostname's certificate stands.
 */
import * as v from 'valibot';
import type { Hosting } from '../../../db/schema/index.ts';
import { certificateSources, certificateStatuses } from '../../../db/schema/index.ts';
import type { HostingLiveState } from '../../../domain/ingress/state.ts';
import { isoOrNull } from '../../present.ts';

export const LiveSchema = v.object({
  /** Where the hosting answers: https (or http without TLS) per hostname and path prefix. */
  urls: v.array(v.string()),
  servers: v.array(
    v.object({
      serverId: v.string(),
      serverName: v.string(),
      /** applied: the server's ingress serves the route; pending: an apply is queued or running; failed: the last apply was refused and the previous configuration keeps serving (`error` says why). */
      route: v.picklist(['applied', 'pending', 'failed']),
      error: v.nullable(v.string()),
      /** Containers the route sends traffic to, and of the service on that server. */
      upstreams: v.nullable(v.number()),
      containers: v.nullable(v.number()),
      /** Why it sends traffic to fewer containers than it could, or to none. */
      problem: v.nullable(v.string()),
      reportedAt: v.nullable(v.string()),
    }),
  ),
  certificates: v.array(
    v.object({
      serverId: v.string(),
      serverName: v.string(),
      hostname: v.string(),
      source: v.picklist(certificateSources),
      status: v.nullable(v.picklist(certificateStatuses)),
      error: v.nullable(v.string()),
      issuer: v.nullable(v.string()),
      notAfter: v.nullable(v.string()),
    }),
  ),
});

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

export function presentLive(row: Hosting, state: HostingLiveState | undefined) {
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
