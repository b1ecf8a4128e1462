/**
 * A Compose save against the host ports tcp/udp hostings and ingresses hold (docs/DECISIONS.md
 * "Ingress", host ports). After the environment's rows follow the saved document (in the save's
 * transaction), every fixed port a service of it publishes is checked on every server the
 * service would be placed on: the placement planner's answer for the merged document, or, when
 * it cannot answer yet (no anchor, no connected server for a scheduled service), the anchor and
 * the servers its containers run on. On each such server it must not collide with
 *   - a tcp/udp hosting of another environment there, or of this environment's services placed there;
 *   - the ingress's listeners (tcp 80, 443, udp 443), only where an ingress runs or a hosting there
 *     will bring one: a server with no hostings keeps its 80 and 443 for Compose.
 * Compose `ports:` of different environments on one server are not compared here (Docker
 * refuses the second at deploy; the planner compares the services of one plan).
 */
import { isMapping, type JsonObject } from '../../compose/values.ts';
import { publishedPorts } from '../../compose/planner/ports.ts';
import { planPlacement } from '../../compose/planner/plan.ts';
import type { Environment, Hosting, Project, Server, Service } from '../../db/schema/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { hostingsOfServices, servicesOfEnvironment } from '../compose/queries.ts';
import { plannerServer, resolvePlacement } from '../deploy/placement.ts';
import { containersOfEnvironment } from '../deployments/queries.ts';
import { fabricReadiness } from '../fabric/service.ts';
import { findOrganization } from '../organizations/queries.ts';
import { serversOfOrganization } from '../servers/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { conflictIn, firstCollision, hasIngress, hostingClaims, hostingsOn, ingressClaims } from './host-ports.ts';

const instancesOf = (options: Service['options']): number => (Number.isInteger(options?.instances) ? (options!.instances as number) : 1);

/** The servers each service of the merged document would run on, by Compose key. */
function placementAtSave(db: Queryable, project: Project, environment: Environment, merged: JsonObject): Map<string, Server[]> {
  const servers = serversOfOrganization(db, project.organizationId);
  const byId = new Map(servers.map((row) => [row.id, row]));
  const rows = servicesOfEnvironment(db, environment.id);
  const keyOf = new Map(rows.map((row) => [row.id, row.composeServiceName]));
  const previous = containersOfEnvironment(db, environment.id)
    .filter((row) => row.role === 'service' && keyOf.has(row.serviceId))
    .map((row) => ({ service: keyOf.get(row.serviceId)!, ordinal: row.ordinal, serverId: row.serverId }));
  const keys = isMapping(merged.services) ? Object.keys(merged.services) : [];
  let anchor: Server | undefined;
  try {
    anchor = resolvePlacement(db, { ...environment, organizationId: project.organizationId }, project);
    const placement = planPlacement({
      document: merged,
      instances: new Map(rows.map((row) => [row.composeServiceName, instancesOf(row.options)])),
      servers: servers.map(plannerServer),
      anchorServerId: anchor.id,
      previous,
      fabric: fabricReadiness(db, findOrganization(db, project.organizationId)!),
    });
    return new Map(keys.map((key) => [key, [...new Set((placement.services.get(key) ?? []).map((replica) => replica.serverId))].map((id) => byId.get(id)!)]));
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    // The deploy will say why it cannot plan; until then the services run where they are.
    return new Map(keys.map((key) => {
      const ids = new Set([...(anchor ? [anchor.id] : []), ...previous.filter((replica) => replica.service === key).map((replica) => replica.serverId)]);
      return [key, [...ids].map((id) => byId.get(id)!).filter(Boolean)];
    }));
  }
}

/** 422 host_port_conflict naming both when the saved document publishes a port held on a server it runs on. */
export function checkComposePorts(db: Queryable, project: Project, environment: Environment, merged: JsonObject): void {
  const services = isMapping(merged.services) ? merged.services : {};
  const published = Object.entries(services).flatMap(([key, definition]) => (isMapping(definition) ? [{ key, ports: publishedPorts(definition.ports, `services.${key}.ports`) }] : []));
  if (published.every(({ ports }) => ports.length === 0)) return;
  const placement = placementAtSave(db, project, environment, merged);
  const rows = servicesOfEnvironment(db, environment.id);
  const hostingsByKey = new Map<string, Hosting[]>();
  for (const row of hostingsOfServices(db, rows.map((service) => service.id))) {
    const key = rows.find((service) => service.id === row.serviceId)!.composeServiceName;
    hostingsByKey.set(key, [...(hostingsByKey.get(key) ?? []), row]);
  }
  const claimsOn = new Map<string, ReturnType<typeof hostingClaims>>();
  const claimsFor = (host: Server) => {
    let claims = claimsOn.get(host.id);
    if (claims === undefined) {
      const mine = [...placement].filter(([, on]) => on.some((server) => server.id === host.id)).flatMap(([key]) => hostingsByKey.get(key) ?? []);
      const hostings = [...hostingsOn(db, host, environment.id), ...mine];
      claims = [...(hasIngress(db, host) || hostings.length > 0 ? ingressClaims(host) : []), ...hostingClaims(db, host, hostings)];
      claimsOn.set(host.id, claims);
    }
    return claims;
  };
  for (const { key, ports } of published) {
    if (ports.length === 0) continue;
    for (const host of placement.get(key) ?? []) {
      const taken = firstCollision(ports, claimsFor(host));
      if (taken) {
        throw new DomainError(
          'host_port_conflict',
          `services.${key}.ports "${taken.port.text}" of environment ${environment.name} claims ${conflictIn(taken.port, host)}, already claimed by ${taken.claim.by}`,
          `services.${key}.ports`,
        );
      }
    }
  }
}
