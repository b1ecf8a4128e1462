/**
 * tcp and udp hostings publish ports on the servers running their service, at the address of
 * their bind scope (docs/DECISIONS.md "Ingress"):
 *   public      every address, or the registered ip (ipId) the hosting names
 *   datacenter  the server's private address (set by an admin on the server; refused unknown)
 *   local       127.0.0.1
 * Two hostings, a hosting and a Compose `ports:` entry, or a hosting and the server's ingress
 * (tcp 80 and 443, udp 443) claiming one address, port and protocol on one server are refused
 * at save with 422 host_port_conflict naming both. The ingress's listeners are claims where an
 * ingress runs or a hosting will bring one; a hosting bringing one to a server where Compose
 * holds 80 or 443 is refused too. Compose saves: compose-ports.ts.
 */
import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import type { HostingPublish } from '../../compose/compile.ts';
import { type HostPort, portsCollide, publishedPorts } from '../../compose/planner/ports.ts';
import { mergeCompose } from '../../compose/merge.ts';
import { isMapping, type JsonObject } from '../../compose/values.ts';
import type { IpScope } from '../../contract/enums.ts';
import { container, environment, type Hosting, hosting, ip, project, type Server, server, service } from '../../db/schema/index.ts';
import { DomainError, validationFailed } from '../../lib/errors.ts';
import { dataOf, storedDocument } from '../compose/documents.ts';
import { ingressEnvironmentOf } from './queries.ts';
import { hasDependents, type Queryable } from '../shared/database.ts';

interface PortOptions {
  protocol?: string;
  bind?: IpScope;
  ports?: { published: number; target: number; protocol?: string }[];
}

/** A port a hosting publishes, with the container port behind it. */
export interface HostingPort extends HostPort {
  target: number;
  /** Where in the hosting's options it is written. */
  path: string;
}

/** The ingress's own listeners, on every server with hostings. */
const INGRESS_PORTS: HostPort[] = [
  { protocol: 'tcp', address: null, from: 80, to: 80, perServer: 1, text: 'tcp 80 (http)' },
  { protocol: 'tcp', address: null, from: 443, to: 443, perServer: 1, text: 'tcp 443 (https)' },
  { protocol: 'udp', address: null, from: 443, to: 443, perServer: 1, text: 'udp 443 (http/3)' },
];

const describe = (port: HostPort) => `${port.protocol} ${port.from === port.to ? port.from : `${port.from}-${port.to}`} on ${port.address ?? 'every address'}`;

/** Where a hosting publishes on `host`: its bind scope's address, or a 422 naming why it has none. */
export function bindAddress(db: Queryable, host: Server, bind: IpScope, ipId: string | null): string | null {
  if (bind === 'local') return '127.0.0.1';
  if (bind === 'datacenter') {
    if (!host.privateAddress) throw validationFailed(`server ${host.name} has no private address: set the server's privateAddress, or bind public or local`, 'options.bind');
    return host.privateAddress;
  }
  if (ipId === null) return null;
  return db.select({ address: ip.address }).from(ip).where(eq(ip.id, ipId)).get()?.address ?? null;
}

/** What tcp/udp hostings publish, by Compose service key: the compiler adds it to each server's document. */
export function hostingPublishes(db: Queryable, hostings: readonly Hosting[], services: readonly { id: string; composeServiceName: string }[], servers: ReadonlyMap<string, Server>): Record<string, HostingPublish[]> {
  const keyOf = new Map(services.map((row) => [row.id, row.composeServiceName]));
  const publishes: Record<string, HostingPublish[]> = {};
  for (const row of hostings) {
    const options = (row.options ?? {}) as PortOptions;
    const protocol = row.protocol ?? 'http';
    const key = keyOf.get(row.serviceId);
    if (protocol === 'http' || !options.ports || key === undefined) continue;
    for (const port of options.ports) {
      (publishes[key] ??= []).push({
        published: port.published,
        target: port.target,
        protocol: (port.protocol ?? protocol) as 'tcp' | 'udp',
        hosting: `hosting ${row.name ?? row.id}`,
        addressOn: (serverId) => bindAddress(db, servers.get(serverId)!, options.bind ?? 'public', row.ipId),
      });
    }
  }
  return publishes;
}

/** The ports a tcp/udp hosting publishes on `host` (none for http). */
export function hostingPorts(db: Queryable, row: Pick<Hosting, 'protocol' | 'options' | 'ipId'>, host: Server): HostingPort[] {
  const options = (row.options ?? {}) as PortOptions;
  const protocol = row.protocol ?? 'http';
  if (protocol === 'http' || !options.ports) return [];
  const address = bindAddress(db, host, options.bind ?? 'public', row.ipId);
  return options.ports.map((port, i) => ({
    protocol: port.protocol ?? protocol,
    address,
    from: port.published,
    to: port.published,
    perServer: 1,
    target: port.target,
    text: `${port.published}:${port.target}/${port.protocol ?? protocol}`,
    path: `options.ports.${i}.published`,
  }));
}

/** The servers a service's containers run on or will: its environment's anchor and its container rows. */
export function serversOfService(db: Queryable, serviceId: string): Server[] {
  const owner = db
    .select({ environmentServer: environment.serverId, projectOptions: project.options })
    .from(service)
    .innerJoin(environment, eq(environment.id, service.environmentId))
    .innerJoin(project, eq(project.id, environment.projectId))
    .where(eq(service.id, serviceId))
    .get();
  const anchor = owner?.environmentServer ?? (typeof owner?.projectOptions?.defaultServerId === 'string' ? owner.projectOptions.defaultServerId : null);
  const placed = db.selectDistinct({ id: container.serverId }).from(container).where(and(eq(container.serviceId, serviceId), eq(container.role, 'service'))).all();
  const ids = [...new Set([...(anchor ? [anchor] : []), ...placed.map((row) => row.id)])];
  return ids.length === 0 ? [] : db.select().from(server).where(inArray(server.id, ids)).all();
}

/** The environments whose containers run on `host` or whose anchor it is (its pin, else its project's default). */
function environmentsOn(db: Queryable, host: Server) {
  const placed = new Set(
    db
      .selectDistinct({ id: service.environmentId })
      .from(container)
      .innerJoin(service, eq(service.id, container.serviceId))
      .where(and(eq(container.serverId, host.id), eq(container.role, 'service')))
      .all()
      .map((row) => row.id),
  );
  return db
    .select({ environment, project })
    .from(environment)
    .innerJoin(project, eq(project.id, environment.projectId))
    .where(and(eq(project.organizationId, host.organizationId), or(eq(environment.serverId, host.id), isNull(environment.serverId), inArray(environment.id, [...placed]))))
    .all()
    .filter(({ environment: row, project: owner }) => row.serverId === host.id || placed.has(row.id) || (row.serverId === null && owner.options?.defaultServerId === host.id));
}

export interface Claim {
  port: HostPort;
  by: string;
}

/** The ingress's listeners on `host`: a claim wherever an ingress runs or a hosting will bring one. */
export const ingressClaims = (host: Server): Claim[] => INGRESS_PORTS.map((port) => ({ port, by: `the ingress of server ${host.name}` }));

/** Whether `host` runs an ingress: it has one (kept once made, even without routes). */
export const hasIngress = (db: Queryable, host: Server): boolean => ingressEnvironmentOf(db, host.id) !== undefined;

/** The hostings of the environments on `host` (see environmentsOn), but those of `exceptEnvironmentId`. */
export function hostingsOn(db: Queryable, host: Server, exceptEnvironmentId?: string): Hosting[] {
  const environments = environmentsOn(db, host).filter(({ environment: env }) => env.id !== exceptEnvironmentId);
  const services = environments.length === 0 ? [] : db.select({ id: service.id }).from(service).where(inArray(service.environmentId, environments.map(({ environment: env }) => env.id))).all();
  return services.length === 0 ? [] : db.select().from(hosting).where(inArray(hosting.serviceId, services.map((row) => row.id))).all();
}

/** The ports tcp/udp hostings hold on `host`; one whose bind address is unknown there publishes nothing (its deploy is refused). */
export function hostingClaims(db: Queryable, host: Server, rows: readonly Hosting[]): Claim[] {
  const claims: Claim[] = [];
  for (const row of rows) {
    let ports: HostingPort[];
    try {
      ports = hostingPorts(db, row, host);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'validation_failed') continue;
      throw error;
    }
    for (const port of ports) claims.push({ port, by: `hosting ${row.name ?? row.id} (${port.text})` });
  }
  return claims;
}

/** The Compose `ports:` of the environments on `host`. */
function composeClaims(db: Queryable, host: Server): Claim[] {
  const claims: Claim[] = [];
  for (const { environment: env, project: owner } of environmentsOn(db, host)) {
    const merged: JsonObject = mergeCompose(dataOf(storedDocument(owner.options)), storedDocument(env.options)?.data ?? undefined);
    const authored = isMapping(merged.services) ? merged.services : {};
    for (const [key, definition] of Object.entries(authored)) {
      if (!isMapping(definition)) continue;
      for (const port of publishedPorts(definition.ports, `services.${key}.ports`)) {
        claims.push({ port, by: `services.${key}.ports "${port.text}" of environment ${env.name} of project ${owner.name}` });
      }
    }
  }
  return claims;
}

/** The first of `ports` someone else claims: the port and the claim. */
export function firstCollision<T extends HostPort>(ports: readonly T[], claims: readonly Claim[]): { port: T; claim: Claim } | undefined {
  for (const port of ports) {
    const claim = claims.find((candidate) => portsCollide(port, candidate.port));
    if (claim) return { port, claim };
  }
  return undefined;
}

export const conflictIn = (port: HostPort, host: Server) => `${describe(port)} on server ${host.name}`;

/**
 * Before a server's private address changes: the tcp/udp hostings there that bind `datacenter`
 * publish at it from their environment's next deploy. Clearing it while some do is 409
 * has_dependents naming them; a new address where one of their ports is already claimed is 422
 * host_port_conflict naming both.
 */
export function checkPrivateAddressChange(db: Queryable, host: Server, privateAddress: string | null): void {
  const rows = hostingsOn(db, host);
  const bound = rows.filter((row) => (row.protocol ?? 'http') !== 'http' && ((row.options ?? {}) as PortOptions).bind === 'datacenter' && ((row.options ?? {}) as PortOptions).ports?.length);
  if (bound.length === 0) return;
  if (privateAddress === null) throw hasDependents(`server ${host.name}`, `tcp/udp hostings that bind datacenter to its private address (${bound.map((row) => row.name ?? row.id).join(', ')}): bind them public or local`);
  const moved = { ...host, privateAddress };
  for (const row of bound) {
    const others = [...ingressClaims(moved), ...composeClaims(db, moved), ...hostingClaims(db, moved, rows.filter((candidate) => candidate.id !== row.id))];
    const taken = firstCollision(hostingPorts(db, row, moved), others);
    if (taken) {
      throw new DomainError('host_port_conflict', `at ${privateAddress}, hosting ${row.name ?? row.id} would publish ${conflictIn(taken.port, moved)}, already claimed by ${taken.claim.by}`, 'privateAddress');
    }
  }
}

/**
 * 422 host_port_conflict when a port the hosting would publish is claimed on a server it runs on,
 * or when the ingress it brings to a server that has none yet finds its listeners taken there.
 */
export function checkHostingPorts(db: Queryable, row: Pick<Hosting, 'protocol' | 'options' | 'ipId' | 'serviceId'> & { id?: string; name?: string | null }): void {
  for (const host of serversOfService(db, row.serviceId)) {
    const others = [...composeClaims(db, host), ...hostingClaims(db, host, hostingsOn(db, host).filter((candidate) => candidate.id !== row.id))];
    const mine = firstCollision(hostingPorts(db, row, host), [...ingressClaims(host), ...others]);
    if (mine) throw new DomainError('host_port_conflict', `${conflictIn(mine.port, host)} is already claimed by ${mine.claim.by}`, mine.port.path);
    const listeners = hasIngress(db, host) ? undefined : firstCollision(INGRESS_PORTS, others);
    if (listeners) {
      const hostingName = row.name ? `hosting ${row.name}` : 'this hosting';
      throw new DomainError(
        'host_port_conflict',
        `${hostingName} brings an ingress to server ${host.name}, whose ${listeners.port.text} listener on every address is already claimed by ${listeners.claim.by}`,
        'serviceId',
      );
    }
  }
}
