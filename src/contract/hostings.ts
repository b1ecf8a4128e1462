/** Hostings: routing entries of a service (hostnames or ports, bind scope, TLS pin). */
import * as v from 'valibot';
import { Description, JsonColumn, JsonObject, ListQuery, refuseArrays, strict, Text, Timestamp, Timestamps, Uuid } from './common.ts';
import { certificateSources, certificateStatuses, hostingProtocols, ipScopes, routeStatuses, tlsModes } from './enums.ts';

const DNS_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A DNS name (IDNs as punycode), optionally a `*.` wildcard. */
export const Hostname = v.pipe(
  v.string(),
  v.maxLength(253, 'must be at most 253 characters'),
  v.regex(new RegExp(`^(?:\\*\\.)?(?:${DNS_LABEL}\\.)*${DNS_LABEL}$`), 'must be a DNS name'),
);
export const Port = v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be 1 to 65535'), v.maxValue(65535, 'must be 1 to 65535'));
const portProtocols = ['tcp', 'udp'] as const;
const PortMapping = strict({ published: Port, target: Port, protocol: v.optional(v.picklist(portProtocols, 'must be tcp or udp')) });

const HostingOptions = strict(
  {
    /** Unique per organization (case-insensitive) whatever the path prefix. */
    hostnames: v.optional(v.pipe(v.array(Hostname), v.maxLength(100, 'at most 100 hostnames'))),
    pathPrefix: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'), v.regex(/^\/[^\s*]*$/, "must start with '/' and hold no '*' or spaces"))),
    targetPort: v.optional(Port),
    protocol: v.optional(v.picklist(hostingProtocols, 'must be http, tcp or udp')),
    ports: v.optional(v.pipe(v.array(PortMapping), v.maxLength(100, 'at most 100 ports'))),
    /** http without a tlsId: auto (ACME when the organization opted in, else internal), internal (the organization CA) or none (plain http). */
    tls: v.optional(v.picklist(tlsModes, 'must be auto, internal or none')),
    /** `public` is required when an ipId is set. */
    bind: v.optional(v.picklist(ipScopes, 'must be public, datacenter or local')),
    /** Reverse-proxy toggles, each on or off. */
    proxy: v.optional(refuseArrays(v.record(v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9]*$/, 'must be a camelCase name')), v.boolean()))),
    /** Hints for the web tier (free-form). */
    web: v.optional(JsonObject),
  },
  'option',
);
export type HostingOptions = v.InferOutput<typeof HostingOptions>;

const Fields = {
  name: v.optional(v.nullable(Text(255))),
  description: v.optional(v.nullable(Description)),
  /** Reconcile provenance keys (composeOwned, composeServiceName, ...) are kept from clients. */
  metadata: v.optional(v.nullable(JsonObject)),
  options: v.optional(v.nullable(HostingOptions)),
  /** A certificate of the organization's TLS library; null lets the proxy self-sign. */
  tlsId: v.optional(v.nullable(Uuid)),
  /** A public ip of the organization; needs options.bind = public. */
  ipId: v.optional(v.nullable(Uuid)),
};
export const HostingCreate = strict({ serviceId: Uuid, ...Fields });
export type HostingCreate = v.InferInput<typeof HostingCreate>;
export const HostingUpdate = strict(Fields);
export type HostingUpdate = v.InferInput<typeof HostingUpdate>;
export const HostingListQuery = v.object({ serviceId: Uuid, ...ListQuery });

/** The live part of a hosting: its URLs and, per server running its service, its route and certificates. */
export const HostingLive = v.object({
  /** Where the hosting answers: https (or http without TLS) per hostname and path prefix. */
  urls: v.array(v.string()),
  servers: v.array(
    v.object({
      serverId: v.string(),
      serverName: v.string(),
      /** applied: the server's ingress serves the route; pending: an apply is queued or running; failed: the last apply was refused and the previous configuration keeps serving (`error` says why). */
      route: v.picklist(routeStatuses),
      error: v.nullable(v.string()),
      /** Containers the route sends traffic to, and of the service on that server. */
      upstreams: v.nullable(v.number()),
      containers: v.nullable(v.number()),
      /** Why it sends traffic to fewer containers than it could, or to none. */
      problem: v.nullable(v.string()),
      reportedAt: v.nullable(Timestamp),
    }),
  ),
  certificates: v.array(
    v.object({
      serverId: v.string(),
      serverName: v.string(),
      hostname: v.string(),
      source: v.picklist(certificateSources),
      /** Null for plain http. */
      status: v.nullable(v.picklist(certificateStatuses)),
      /** The ACME error of a failed one, or why the hostname is not served as asked. */
      error: v.nullable(v.string()),
      issuer: v.nullable(v.string()),
      notAfter: v.nullable(Timestamp),
    }),
  ),
});
export type HostingLive = v.InferOutput<typeof HostingLive>;

export const Hosting = v.object({
  id: v.string(),
  serviceId: v.string(),
  tlsId: v.nullable(v.string()),
  ipId: v.nullable(v.string()),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  /** Mirror of options.protocol; null reads as http. */
  protocol: v.nullable(v.picklist(hostingProtocols)),
  metadata: JsonColumn,
  options: v.nullable(
    v.looseObject({
      hostnames: v.optional(v.array(v.string())),
      pathPrefix: v.optional(v.string()),
      targetPort: v.optional(v.number()),
      protocol: v.optional(v.picklist(hostingProtocols)),
      ports: v.optional(v.array(v.looseObject({ published: v.number(), target: v.number(), protocol: v.optional(v.picklist(portProtocols)) }))),
      bind: v.optional(v.picklist(ipScopes)),
      tls: v.optional(v.picklist(tlsModes)),
    }),
  ),
  /** What the servers' ingress does with it now (read-only). */
  live: HostingLive,
  ...Timestamps,
});
export type Hosting = v.InferOutput<typeof Hosting>;
