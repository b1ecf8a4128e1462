/**
 * Keeping each server's ingress in step with its hostings (docs/DECISIONS.md "Ingress"). Every
 * change that can alter a server's routes or certificates (a hosting written or deleted, a
 * library certificate replaced or deleted, the organization's ACME settings, a deploy, stop or
 * destroy placing or removing containers) calls `refreshIngress` for the servers concerned. For
 * each, it commits one deploy of the server's ingress environment, as durable as any deploy:
 * the Caddy Compose document plus the payload (routes, certificates sealed to the server's
 * daemon, the server's CA, ACME settings). A deploy still queued (not yet sent) is brought up to
 * date instead of queuing another, so a burst of changes costs one apply; a change that leaves
 * a server's configuration as it was queues nothing (unless its last apply failed: then it is
 * tried again).
 *
 * A server without hostings gets no ingress; one that had some keeps its Caddy with no routes.
 * A server whose daemon never registered a key gets nothing yet (keys are sealed to it).
 */
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describeCertificate, readCertificateChain } from '../../crypto/certificates.ts';
import { EnvelopeError, type KeyRing, openSecret, sealForDaemon } from '../../crypto/index.ts';
import { composeProjectName, uuidContainerName } from '../../compose/naming.ts';
import { INGRESS_SERVICE } from '../../ingress/compose.ts';
import { container, daemonCommand, environment, type Hosting, type Server } from '../../db/schema/index.ts';
import type { IngressPayload, IngressRoute, TlsSource } from '../../contract/ingress.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../lib/errors.ts';
import { certificateKeyOwner } from '../certificates/service.ts';
import { DEFAULT_COMMAND_TTL_MS, insertCommand } from '../commands/service.ts';
import { insertDeployment, raiseGeneration } from '../deployments/queries.ts';
import type { Enqueued } from '../deployments/service.ts';
import { findOrganization } from '../organizations/queries.ts';
import { findServer } from '../servers/queries.ts';
import { LETS_ENCRYPT_DIRECTORY } from '../../contract/organizations.ts';
import type { Queryable } from '../shared/database.ts';
import { permittedFor, serverAuthority, serverAuthorityKeyOwner } from './authority.ts';
import { ensureIngressRows } from './platform.ts';
import { certificatesOf, hostingsServedBy, ingressEnvironmentOf, latestDeployment, queuedIngressDeployment } from './queries.ts';
import { pruneIngressState } from './state.ts';

export interface IngressContext {
  db: Queryable;
  keyring: KeyRing;
  clock: Clock;
  config: { ingressImage: string };
  commandTtlMs?: number;
}

export type TlsMode = 'auto' | 'internal' | 'none';

interface HostingOptions {
  hostnames?: string[];
  pathPrefix?: string;
  targetPort?: number;
  bind?: IngressRoute['bind'];
  tls?: TlsMode;
}

/** Where a hosting's certificates come from: its pinned certificate, else its tls mode (auto: ACME when the organization opted in). */
export function tlsSourceOf(row: Hosting, acmeEnabled: boolean): TlsSource {
  if (row.tlsId) return { kind: 'library', certificateId: row.tlsId };
  const mode = (row.options as HostingOptions | null)?.tls ?? 'auto';
  if (mode === 'none') return { kind: 'none' };
  return mode === 'auto' && acmeEnabled ? { kind: 'acme' } : { kind: 'internal' };
}

/** The http routes of a server's hostings (tcp and udp ones are published ports, not routes). */
export function routesOf(hostings: readonly Hosting[], acmeEnabled: boolean): IngressRoute[] {
  const routes: IngressRoute[] = [];
  for (const row of hostings) {
    const options = (row.options ?? {}) as HostingOptions;
    if ((row.protocol ?? 'http') !== 'http' || !options.hostnames || options.hostnames.length === 0) continue;
    routes.push({
      hostingId: row.id,
      serviceId: row.serviceId,
      hostnames: options.hostnames,
      pathPrefix: options.pathPrefix ?? null,
      targetPort: options.targetPort ?? null,
      bind: options.bind ?? 'public',
      tls: tlsSourceOf(row, acmeEnabled),
    });
  }
  return routes;
}

function recipientOf(server: Server) {
  return { serverId: server.id, daemonKeyId: server.daemonKeyId!, publicKey: server.publicKey! };
}

/** Opens a pnsecret for delivery; one that no longer opens is a 409 naming what to set again. */
function reseal(ctx: IngressContext, server: Server, envelope: string, owner: Parameters<typeof openSecret>[2], what: string): string {
  let plaintext: string;
  try {
    plaintext = openSecret(ctx.keyring, envelope, owner);
  } catch (error) {
    if (!(error instanceof EnvelopeError)) throw error;
    throw new DomainError('secret_unreadable', `${what} cannot be opened with the current key ring; upload it again`);
  }
  return sealForDaemon(recipientOf(server), plaintext);
}

/** Everything the server's ingress needs, secrets sealed to its daemon. */
function payloadFor(ctx: IngressContext, server: Server, hostings: readonly Hosting[]): IngressPayload {
  const organization = findOrganization(ctx.db, server.organizationId)!;
  const acme = organization.isAcmeEnabled
    ? { directoryUrl: organization.acmeDirectoryUrl ?? LETS_ENCRYPT_DIRECTORY, email: organization.acmeEmail, directoryRoots: organization.acmeDirectoryRoots }
    : null;
  const routes = routesOf(hostings, acme !== null);
  const pinned = [...new Set(routes.flatMap((route) => (route.tls.kind === 'library' ? [route.tls.certificateId] : [])))];
  const certificates = certificatesOf(ctx.db, server.organizationId, pinned).map((row) => ({
    id: row.id,
    certificate: row.certificate,
    key: reseal(ctx, server, row.privateKey, certificateKeyOwner(row.id), `the private key of certificate ${row.name}`),
    names: describeCertificate(readCertificateChain(row.certificate)).names,
  }));
  const signed = routes.filter((route) => route.tls.kind === 'internal' || route.tls.kind === 'acme').flatMap((route) => route.hostnames);
  const authority = serverAuthority(ctx, server, permittedFor(signed));
  return {
    organizationId: server.organizationId,
    routes,
    certificates,
    authority: {
      certificate: authority.certificate,
      key: reseal(ctx, server, authority.privateKey, serverAuthorityKeyOwner(authority.id), "the server's CA key"),
    },
    acme,
  };
}

/**
 * Brings the ingress of each server up to date; answers the deploys it queued or refreshed, for
 * the caller to announce (feed and dispatch). Runs in the caller's transaction when given one.
 */
export function refreshIngress(ctx: IngressContext, serverIds: Iterable<string>): Enqueued[] {
  const enqueued: Enqueued[] = [];
  for (const serverId of new Set(serverIds)) {
    const server = findServer(ctx.db, serverId);
    if (!server || !server.publicKey || !server.daemonKeyId) continue;
    const hostings = hostingsServedBy(ctx.db, serverId);
    if (hostings.length === 0 && !ingressEnvironmentOf(ctx.db, serverId)) continue;
    const queued = ctx.db.transaction((tx) => enqueueIngress({ ...ctx, db: tx }, server, hostings));
    if (queued) enqueued.push(queued);
  }
  return enqueued;
}

/**
 * What an apply depends on, without the sealed envelopes (fresh at every sealing): equal digests
 * mean the same configuration, so a write that changes nothing for a server queues nothing.
 */
function digestOf(ingress: IngressPayload, yaml: string): string {
  const { certificates, authority, ...rest } = ingress;
  const stable = { ...rest, yaml, certificates: certificates.map(({ key: _key, ...certificate }) => certificate), authority: authority.certificate };
  return createHash('sha256').update(JSON.stringify(stable)).digest('hex');
}

function enqueueIngress(ctx: IngressContext, server: Server, hostings: readonly Hosting[]): Enqueued | null {
  const { db } = ctx;
  const rows = ensureIngressRows(db, server, ctx.config.ingressImage);
  const ingress = payloadFor(ctx, server, hostings);
  pruneIngressState(db, server.id, ingress.routes);
  const digest = digestOf(ingress, rows.yaml);
  const latest = latestDeployment(db, rows.environment.id);
  if (latest && latest.status !== 'failed' && rows.environment.metadata?.ingressDigest === digest) return null;
  db.update(environment).set({ metadata: { ...rows.environment.metadata, ingressDigest: digest } }).where(eq(environment.id, rows.environment.id)).run();
  // Held by the daemon to the Compose policy of a platform project (host networking, nothing more).
  const payloadOf = (deploymentId: string) => ({
    deploymentId,
    project: composeProjectName(rows.environment.id),
    compose: rows.yaml,
    secrets: [],
    policy: { hostAccess: false, platform: true },
    ingress,
  });
  const queued = queuedIngressDeployment(db, rows.environment.id);
  const queuedCommand = queued ? db.select().from(daemonCommand).where(eq(daemonCommand.deploymentId, queued.id)).get() : undefined;
  if (queued && queuedCommand?.status === 'queued') {
    const command = db.update(daemonCommand).set({ payload: payloadOf(queued.id) }).where(eq(daemonCommand.id, queuedCommand.id)).returning().get()!;
    return { deployment: queued, commands: [command], containers: [] };
  }
  const generation = raiseGeneration(db, rows.environment.id);
  const deployment = insertDeployment(db, { environmentId: rows.environment.id, serverId: server.id, kind: 'deploy', desiredGeneration: generation, status: 'queued' });
  const slot = { serviceId: rows.serviceId, serverId: server.id, role: 'ingress' as const, ordinal: 1, composeServiceName: INGRESS_SERVICE, containerName: uuidContainerName(rows.serviceId, 'ingress') };
  const ingressContainer = db
    .insert(container)
    .values({ ...slot, status: 'pending' })
    .onConflictDoUpdate({ target: [container.serviceId, container.role, container.ordinal], set: { serverId: server.id } })
    .returning()
    .get();
  const command = insertCommand(db, {
    serverId: server.id,
    deploymentId: deployment.id,
    kind: 'deploy',
    payload: payloadOf(deployment.id),
    expiresAt: new Date(ctx.clock.now().getTime() + (ctx.commandTtlMs ?? DEFAULT_COMMAND_TTL_MS)),
  });
  return { deployment, commands: [command], containers: [ingressContainer] };
}
