/**
 * What the control plane tells a server's ingress (docs/DECISIONS.md "Ingress"): the http routes
 * of the hostings it serves, the library certificates they pin (keys only as `pndaemon`
 * envelopes), the server's own CA (signed by the organization CA) and the organization's ACME
 * settings. Carried by the deploy command of the server's ingress environment; the daemon adds
 * what it observes (container addresses and health) and generates Caddy's configuration from
 * both (src/ingress/caddy-config.ts). Shared by hub and agent; valibot only.
 */
import * as v from 'valibot';
import { certificateSources, certificateStatuses, ipScopes } from './enums.ts';
import { Hostname, Port } from './hostings.ts';

export type { IpScope as BindScope } from './enums.ts';

const uuid = v.pipe(v.string(), v.uuid());
const pem = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max), v.startsWith('-----BEGIN '));
const envelope = v.pipe(v.string(), v.regex(/^pndaemon\.v\d+\./, 'must be a pndaemon envelope'), v.maxLength(64 * 1024));

/** Where a hostname's certificate comes from, as the control plane resolved it. */
export const TlsSource = v.variant('kind', [
  /** A certificate of the organization's TLS library (the hosting's tls_id). */
  v.object({ kind: v.literal('library'), certificateId: uuid }),
  /** Issued by the server's CA, which chains to the organization CA. */
  v.object({ kind: v.literal('internal') }),
  /** From the organization's ACME directory (its owner opted in). */
  v.object({ kind: v.literal('acme') }),
  /** Plain http, no redirect to https. */
  v.object({ kind: v.literal('none') }),
]);
export type TlsSource = v.InferOutput<typeof TlsSource>;

/** One http hosting served by this server: hostnames x path prefix -> the service's containers here. */
export const IngressRoute = v.object({
  hostingId: uuid,
  serviceId: uuid,
  hostnames: v.pipe(v.array(Hostname), v.minLength(1), v.maxLength(100)),
  /** Starts with `/`; null (or `/`) routes every path. */
  pathPrefix: v.nullable(v.pipe(v.string(), v.maxLength(1024), v.regex(/^\/[^\s*]*$/, "must start with '/' and hold no '*' or spaces"))),
  /** The container port; null: the one port the container exposes. */
  targetPort: v.nullable(Port),
  /** public: everyone; datacenter: private addresses only; local: this server only. */
  bind: v.picklist(ipScopes),
  tls: TlsSource,
});
export type IngressRoute = v.InferOutput<typeof IngressRoute>;

export const LibraryCertificate = v.object({
  id: uuid,
  /** PEM chain, leaf first. */
  certificate: pem(64 * 1024),
  /** The PKCS#8 key sealed to this daemon. */
  key: envelope,
  /** Names the leaf is valid for (to tell a hostname it does not cover). */
  names: v.array(v.string()),
});
export type LibraryCertificate = v.InferOutput<typeof LibraryCertificate>;

export const IngressPayload = v.object({
  organizationId: uuid,
  routes: v.pipe(v.array(IngressRoute), v.maxLength(10_000)),
  certificates: v.pipe(v.array(LibraryCertificate), v.maxLength(1000)),
  /** The server's CA (signed by the organization CA): Caddy issues internal certificates with it. */
  authority: v.object({ certificate: pem(16 * 1024), key: envelope }),
  acme: v.nullable(
    v.object({
      directoryUrl: v.pipe(v.string(), v.url(), v.startsWith('https://'), v.maxLength(2048)),
      email: v.nullable(v.pipe(v.string(), v.email(), v.maxLength(254))),
      /** PEM roots to trust for the directory itself (a private ACME server); null: the system's. */
      directoryRoots: v.nullable(pem(64 * 1024)),
    }),
  ),
});
export type IngressPayload = v.InferOutput<typeof IngressPayload>;

/** Entries of one `ingress` frame at most (the daemon splits a larger state over several). */
export const MAX_STATE_ENTRIES = 500;
const note = v.nullable(v.pipe(v.string(), v.maxLength(2000)));


/** What a route does on this server (caddy-config.ts RouteState). */
export const RouteState = v.object({
  hostingId: uuid,
  upstreams: v.pipe(v.number(), v.integer(), v.minValue(0)),
  containers: v.pipe(v.number(), v.integer(), v.minValue(0)),
  problem: note,
});
export type RouteState = v.InferOutput<typeof RouteState>;

/** A hostname's certificate on this server: where it comes from and how far it got. */
export const CertificateState = v.object({
  hostingId: uuid,
  hostname: Hostname,
  source: v.picklist(certificateSources),
  /** Null for plain http. */
  status: v.nullable(v.picklist(certificateStatuses)),
  /** The ACME error of a failed one, or why the hostname is not served as asked. */
  error: note,
  issuer: v.nullable(v.pipe(v.string(), v.maxLength(1000))),
  /** Epoch milliseconds. */
  notAfter: v.nullable(v.number()),
});
export type CertificateState = v.InferOutput<typeof CertificateState>;

/**
 * Changes of the ingress state, upserted by the hub (rows of hostings a server no longer serves
 * are removed by the control plane when it sends the routes).
 */
export const IngressState = v.object({
  routes: v.pipe(v.array(RouteState), v.maxLength(MAX_STATE_ENTRIES)),
  certificates: v.pipe(v.array(CertificateState), v.maxLength(MAX_STATE_ENTRIES)),
});
export type IngressState = v.InferOutput<typeof IngressState>;
