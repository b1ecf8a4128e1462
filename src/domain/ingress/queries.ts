/**
 * Which hostings a server's ingress serves, and which servers a change concerns. A server serves
 * the hostings of the services it runs containers of (container rows, as deploys pre-allocate
 * and daemons report them, with or without a placement planner), unless their environment was
 * destroyed last.
 */
import { and, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { container, deployment, environment, type Hosting, hosting, project, service, tls } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';
import { INGRESS_COMPONENT } from './platform.ts';

/** The environment's latest deployment is not a destroy (a destroyed environment has no routes). */
export const notDestroyed = (environmentId: SQLiteColumn) =>
  sql`coalesce((SELECT ${deployment.kind} FROM ${deployment} WHERE ${deployment.environmentId} = ${environmentId} ORDER BY ${deployment.id} DESC LIMIT 1), '') <> 'destroy'`;

/** The hostings of the services `serverId` runs, oldest first. */
export function hostingsServedBy(db: Queryable, serverId: string): Hosting[] {
  const served = db
    .selectDistinct({ id: container.serviceId })
    .from(container)
    .where(and(eq(container.serverId, serverId), eq(container.role, 'service')));
  return db
    .select({ hosting })
    .from(hosting)
    .innerJoin(service, eq(service.id, hosting.serviceId))
    .where(and(inArray(hosting.serviceId, served), notDestroyed(service.environmentId)))
    .orderBy(hosting.id)
    .all()
    .map((row) => row.hosting);
}

/** Servers running containers of any of the services. */
export function serversRunning(db: Queryable, serviceIds: readonly string[]): string[] {
  if (serviceIds.length === 0) return [];
  return db
    .selectDistinct({ id: container.serverId })
    .from(container)
    .where(and(inArray(container.serviceId, [...serviceIds]), eq(container.role, 'service')))
    .all()
    .map((row) => row.id);
}

/** Servers running the services of an environment. */
export function routingServersOfEnvironment(db: Queryable, environmentId: string): string[] {
  const services = db.select({ id: service.id }).from(service).where(eq(service.environmentId, environmentId)).all();
  return serversRunning(db, services.map((row) => row.id));
}

/** Servers running the services of any environment of a project. */
export function routingServersOfProject(db: Queryable, projectId: string): string[] {
  const services = db
    .select({ id: service.id })
    .from(service)
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .where(eq(environment.projectId, projectId))
    .all();
  return serversRunning(db, services.map((row) => row.id));
}

/** Servers serving a hosting that pins the certificate. */
export function serversPinning(db: Queryable, tlsId: string): string[] {
  const services = db.selectDistinct({ id: hosting.serviceId }).from(hosting).where(eq(hosting.tlsId, tlsId)).all();
  return serversRunning(db, services.map((row) => row.id));
}

/** Servers of the organization that have an ingress environment. */
export function ingressServersOf(db: Queryable, organizationId: string): string[] {
  return db
    .select({ id: environment.serverId })
    .from(environment)
    .innerJoin(project, eq(project.id, environment.projectId))
    .where(and(eq(project.organizationId, organizationId), eq(project.component, INGRESS_COMPONENT), isNotNull(environment.serverId)))
    .all()
    .map((row) => row.id!);
}

/** The library certificates by id, of the organization only. */
export function certificatesOf(db: Queryable, organizationId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db.select().from(tls).where(and(eq(tls.organizationId, organizationId), inArray(tls.id, [...ids]))).all();
}

/** The ingress environment of a server, when it has one. */
export function ingressEnvironmentOf(db: Queryable, serverId: string) {
  return db
    .select({ environment })
    .from(environment)
    .innerJoin(project, eq(project.id, environment.projectId))
    .where(and(eq(environment.serverId, serverId), eq(project.component, INGRESS_COMPONENT)))
    .get()?.environment;
}

/** The environment's latest deployment. */
export function latestDeployment(db: Queryable, environmentId: string) {
  return db.select().from(deployment).where(eq(deployment.environmentId, environmentId)).orderBy(desc(deployment.id)).limit(1).get();
}

/** The ingress environment's latest deployment that has not started yet (coalesced into). */
export function queuedIngressDeployment(db: Queryable, environmentId: string) {
  return db
    .select()
    .from(deployment)
    .where(and(eq(deployment.environmentId, environmentId), eq(deployment.status, 'queued')))
    .orderBy(desc(deployment.id))
    .limit(1)
    .get();
}
