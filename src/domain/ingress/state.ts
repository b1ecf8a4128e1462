/**
 * What each server's ingress reports it does (the daemon's `ingress` frames), kept per server
 * and hosting (routes) and per server and hostname (certificates), and read back for the hosting
 * answers. Certificate changes are returned by `recordIngressState`: the one place that learns
 * a certificate was issued, failed or changed source, for whoever publishes events.
 */
import { and, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import {
  container,
  deployment,
  environment,
  hosting,
  type IngressCertificateRow,
  ingressCertificate,
  ingressRoute,
  type IngressRouteRow,
  project,
  server,
  service,
} from '../../db/schema/index.ts';
import type { CertificateState, IngressRoute, IngressState } from '../../contract/ingress.ts';
import { organizationOfService } from '../services/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { INGRESS_COMPONENT } from './platform.ts';
import { notDestroyed } from './queries.ts';

/** A certificate row as it changed; `previous` is null for a hostname seen the first time. */
export interface CertificateChange {
  serverId: string;
  organizationId: string;
  current: IngressCertificateRow;
  previous: Pick<IngressCertificateRow, 'source' | 'status' | 'error' | 'notAfter'> | null;
}

/** Drops what the server reported about hostings and hostnames it no longer serves (the routes just sent). */
export function pruneIngressState(db: Queryable, serverId: string, routes: readonly IngressRoute[]): void {
  const hostingIds = routes.map((route) => route.hostingId);
  db.delete(ingressRoute).where(and(eq(ingressRoute.serverId, serverId), hostingIds.length > 0 ? notInArray(ingressRoute.hostingId, hostingIds) : undefined)).run();
  const kept = new Set(routes.flatMap((route) => route.hostnames.map((name) => `${route.hostingId} ${name.toLowerCase()}`)));
  const stale = db
    .select({ id: ingressCertificate.id, hostingId: ingressCertificate.hostingId, hostname: ingressCertificate.hostname })
    .from(ingressCertificate)
    .where(eq(ingressCertificate.serverId, serverId))
    .all()
    .filter((row) => !kept.has(`${row.hostingId} ${row.hostname.toLowerCase()}`))
    .map((row) => row.id);
  if (stale.length > 0) db.delete(ingressCertificate).where(inArray(ingressCertificate.id, stale)).run();
}

/** The hostings of `ids` that belong to the organization (a daemon reports only its own). */
function ownHostings(db: Queryable, organizationId: string, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set();
  return new Set(
    db
      .select({ id: hosting.id, organizationId: organizationOfService(hosting.serviceId) })
      .from(hosting)
      .where(inArray(hosting.id, [...new Set(ids)]))
      .all()
      .filter((row) => row.organizationId === organizationId)
      .map((row) => row.id),
  );
}

const certificateValues = (entry: CertificateState) => ({
  source: entry.source,
  status: entry.status,
  error: entry.error,
  issuer: entry.issuer,
  notAfter: entry.notAfter === null ? null : new Date(entry.notAfter),
});

/** Upserts one frame's entries; answers the certificates whose source, status, error or expiry changed. */
export function recordIngressState(db: Queryable, serverId: string, organizationId: string, state: IngressState): CertificateChange[] {
  return db.transaction((tx) => {
    const own = ownHostings(tx, organizationId, [...state.routes, ...state.certificates].map((entry) => entry.hostingId));
    for (const entry of state.routes.filter((route) => own.has(route.hostingId))) {
      const values = { upstreams: entry.upstreams, containers: entry.containers, problem: entry.problem, updatedAt: new Date() };
      tx.insert(ingressRoute)
        .values({ serverId, hostingId: entry.hostingId, ...values })
        .onConflictDoUpdate({ target: [ingressRoute.serverId, ingressRoute.hostingId], set: values })
        .run();
    }
    const changes: CertificateChange[] = [];
    for (const entry of state.certificates.filter((certificate) => own.has(certificate.hostingId))) {
      const existing = tx
        .select()
        .from(ingressCertificate)
        .where(and(eq(ingressCertificate.serverId, serverId), eq(sql`lower(${ingressCertificate.hostname})`, entry.hostname.toLowerCase())))
        .get();
      const values = { hostingId: entry.hostingId, hostname: entry.hostname, ...certificateValues(entry) };
      const unchanged =
        existing &&
        existing.hostingId === values.hostingId &&
        existing.source === values.source &&
        existing.status === values.status &&
        existing.error === values.error &&
        existing.issuer === values.issuer &&
        existing.notAfter?.getTime() === values.notAfter?.getTime();
      if (unchanged) continue;
      const current = existing
        ? tx.update(ingressCertificate).set({ ...values, updatedAt: new Date() }).where(eq(ingressCertificate.id, existing.id)).returning().get()!
        : tx.insert(ingressCertificate).values({ serverId, ...values }).returning().get();
      changes.push({ serverId, organizationId, current, previous: existing ?? null });
    }
    return changes;
  });
}

export interface HostingIngressState {
  routes: IngressRouteRow[];
  certificates: IngressCertificateRow[];
}

/** What every server serving them reported, by hosting id. */
export function ingressStatesOf(db: Queryable, hostingIds: readonly string[]): Map<string, HostingIngressState> {
  const states = new Map<string, HostingIngressState>(hostingIds.map((id) => [id, { routes: [], certificates: [] }]));
  if (hostingIds.length === 0) return states;
  for (const row of db.select().from(ingressRoute).where(inArray(ingressRoute.hostingId, [...hostingIds])).all()) states.get(row.hostingId)?.routes.push(row);
  for (const row of db.select().from(ingressCertificate).where(inArray(ingressCertificate.hostingId, [...hostingIds])).all()) states.get(row.hostingId)?.certificates.push(row);
  return states;
}

export type RouteStatus = 'applied' | 'pending' | 'failed';

/** A hosting as one server's ingress serves it. */
export interface ServerRouteState {
  serverId: string;
  serverName: string;
  /** applied: the server reported the route; pending: an apply is queued or running; failed: the last apply was refused (the previous configuration keeps serving). */
  status: RouteStatus;
  error: string | null;
  upstreams: number | null;
  containers: number | null;
  problem: string | null;
  reportedAt: Date | null;
}

export interface HostingLiveState {
  servers: ServerRouteState[];
  certificates: (IngressCertificateRow & { serverName: string })[];
}

/** The live state of each hosting: per server running its service (unless its environment was destroyed), the route and the certificates. */
export function liveStatesOf(db: Queryable, hostings: readonly { id: string; serviceId: string }[]): Map<string, HostingLiveState> {
  const states = ingressStatesOf(db, hostings.map((row) => row.id));
  const serviceIds = [...new Set(hostings.map((row) => row.serviceId))];
  const placements =
    serviceIds.length === 0
      ? []
      : db
          .selectDistinct({ serviceId: container.serviceId, serverId: container.serverId, serverName: server.name })
          .from(container)
          .innerJoin(server, eq(server.id, container.serverId))
          .innerJoin(service, eq(service.id, container.serviceId))
          .where(and(inArray(container.serviceId, serviceIds), eq(container.role, 'service'), notDestroyed(service.environmentId)))
          .all();
  const applies = new Map<string, { status: RouteStatus; error: string | null }>();
  for (const serverId of new Set(placements.map((row) => row.serverId))) applies.set(serverId, lastApplyOf(db, serverId));
  const names = new Map(placements.map((row) => [row.serverId, row.serverName]));
  const live = new Map<string, HostingLiveState>();
  for (const row of hostings) {
    const reported = states.get(row.id)!;
    const servers = placements
      .filter((placement) => placement.serviceId === row.serviceId)
      .map((placement): ServerRouteState => {
        const apply = applies.get(placement.serverId)!;
        const route = reported.routes.find((entry) => entry.serverId === placement.serverId);
        return {
          serverId: placement.serverId,
          serverName: placement.serverName,
          status: apply.status === 'applied' && !route ? 'pending' : apply.status,
          error: apply.error,
          upstreams: route?.upstreams ?? null,
          containers: route?.containers ?? null,
          problem: route?.problem ?? null,
          reportedAt: route?.updatedAt ?? null,
        };
      });
    const certificates = reported.certificates.map((entry) => ({ ...entry, serverName: names.get(entry.serverId) ?? entry.serverId }));
    live.set(row.id, { servers, certificates });
  }
  return live;
}

/** The state of the last ingress apply of a server: its ingress environment's latest deployment. */
function lastApplyOf(db: Queryable, serverId: string): { status: RouteStatus; error: string | null } {
  const latest = db
    .select({ status: deployment.status, error: deployment.error })
    .from(deployment)
    .innerJoin(environment, eq(environment.id, deployment.environmentId))
    .innerJoin(project, eq(project.id, environment.projectId))
    .where(and(eq(environment.serverId, serverId), eq(project.component, INGRESS_COMPONENT)))
    .orderBy(desc(deployment.id))
    .limit(1)
    .get();
  if (!latest) return { status: 'pending', error: null };
  if (latest.status === 'failed') return { status: 'failed', error: latest.error };
  return { status: latest.status === 'succeeded' ? 'applied' : 'pending', error: null };
}
