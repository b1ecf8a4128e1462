/**
 * tcp and udp hostings publish ports on the servers running their service, at the address of
 * their bind scope (docs/DECISIONS.md "Ingress"):
 *   public      every address, or the registered ip (ipId) the hosting names
 *   datacenter  the server's private address (set by an admin on the server; refused unknown)
 *   local       127.0.0.1
 * Two hostings, a hosting and a Compose `ports:` entry, or a hosting and the server's ingress
 * (tcp 80 and 443, udp 443) claiming one address, port and protocol on one server are refused
 * at save with 422 host_port_conflict naming both.
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
import type { Queryable } from '../shared/database.ts';

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

interface Claim {
  port: HostPort;
  by: string;
}

/** What else claims ports on `host`: the ingress, other tcp/udp hostings, Compose `ports:`. */
function claimsOn(db: Queryable, host: Server, exceptHostingId: string | undefined): Claim[] {
  const claims: Claim[] = INGRESS_PORTS.map((port) => ({ port, by: `the ingress of server ${host.name}` }));
  for (const { environment: env, project: owner } of environmentsOn(db, host)) {
    const services = db.select().from(service).where(eq(service.environmentId, env.id)).all();
    const merged: JsonObject = mergeCompose(dataOf(storedDocument(owner.options)), storedDocument(env.options)?.data ?? undefined);
    const authored = isMapping(merged.services) ? merged.services : {};
    for (const [key, definition] of Object.entries(authored)) {
      if (!isMapping(definition)) continue;
      for (const port of publishedPorts(definition.ports, `services.${key}.ports`)) {
        claims.push({ port, by: `services.${key}.ports "${port.text}" of environment ${env.name} of project ${owner.name}` });
      }
    }
    if (services.length === 0) continue;
    const rows = db.select().from(hosting).where(inArray(hosting.serviceId, services.map((row) => row.id))).all();
    for (const row of rows.filter((candidate) => candidate.id !== exceptHostingId)) {
      for (const port of hostingPorts(db, row, host)) claims.push({ port, by: `hosting ${row.name ?? row.id} (${port.text})` });
    }
  }
  return claims;
}

/** 422 host_port_conflict when a port the hosting would publish is claimed on a server it runs on. */
export function checkHostingPorts(db: Queryable, row: Pick<Hosting, 'protocol' | 'options' | 'ipId' | 'serviceId'> & { id?: string; name?: string | null }): void {
  for (const host of serversOfService(db, row.serviceId)) {
    const mine = hostingPorts(db, row, host);
    if (mine.length === 0) continue;
    const claims = claimsOn(db, host, row.id);
    for (const port of mine) {
      const taken = claims.find((claim) => portsCollide(port, claim.port));
      if (taken) {
        throw new DomainError('host_port_conflict', `${describe(port)} on server ${host.name} is already claimed by ${taken.by}`, port.path);
      }
    }
  }
}
