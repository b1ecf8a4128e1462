/**
 * Compose-owned hostings: each `x-panel.hosting[]` entry of a service is one hosting row of that
 * service, marked in metadata (composeOwned, composeServiceName, composeRoute, composeTlsMode,
 * composeAdopted). An entry is matched to its row by its route, a stable key: `http:<first
 * hostname><pathPrefix>` or `<tcp|udp>:<port>`, so editing its port, bind, TLS mode or
 * description updates the row in place.
 *
 * - A new route first adopts a hand-made hosting of the same service routing one of its
 *   hostnames (composeAdopted: true); otherwise a row is created.
 * - Derived options (hostnames, pathPrefix, targetPort, protocol, ports, bind, tls) follow the
 *   document; other option keys, tlsId and client metadata keys are kept; ipId is cleared when
 *   bind is not public. The name is the first hostname (the route for tcp/udp).
 * - The description is the client's: written from the entry when a row is created (or an
 *   adopted one has none) and afterwards only when the entry's own description changes.
 * - Rows of routes gone from the document are deleted; hand-made rows are never touched
 *   except by adoption.
 * - The hostname mirror is rewritten with the hostings domain's writer (409 hostname_in_use).
 */
import type { Hosting } from '../../db/schema/index.ts';
import { plain } from '../../compose/checks.ts';
import { composeInvalid } from '../../compose/limits.ts';
import { isMapping, type JsonObject, joinPath } from '../../compose/values.ts';
import { DomainError } from '../../lib/errors.ts';
import { writeHostnameMirror } from '../hostings/mirror.ts';
import { deleteHostingRow, insertHosting, replaceHostnames, updateHostingRow } from '../hostings/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { hostingsOfServices } from './queries.ts';

/** One service's hosting entries, now and before this save. */
export interface ServiceRoutes {
  serviceId: string;
  composeServiceName: string;
  entries: JsonObject[];
  previousEntries: JsonObject[];
}

const DERIVED_OPTION_KEYS = ['hostnames', 'pathPrefix', 'targetPort', 'protocol', 'ports', 'bind', 'tls'] as const;

interface Route {
  key: string;
  path: string;
  hostnames: string[];
  options: JsonObject;
  tlsMode: string | null;
  description: string | undefined;
}

function routeOf(entry: JsonObject, path: string): Route {
  const protocol = typeof entry.protocol === 'string' ? entry.protocol : 'http';
  const hostnames = [
    ...(typeof entry.hostname === 'string' ? [entry.hostname] : []),
    ...(Array.isArray(entry.hostnames) ? entry.hostnames.map(String) : []),
  ];
  const options: JsonObject = { protocol };
  if (hostnames.length > 0) options.hostnames = hostnames;
  if (typeof entry.pathPrefix === 'string') options.pathPrefix = entry.pathPrefix;
  if (typeof entry.targetPort === 'number') options.targetPort = entry.targetPort;
  if (typeof entry.port === 'number') {
    options.ports = [{ published: entry.port, target: typeof entry.targetPort === 'number' ? entry.targetPort : entry.port, protocol }];
  }
  if (typeof entry.bind === 'string') options.bind = entry.bind;
  if (protocol === 'http' && typeof entry.tls === 'string') options.tls = entry.tls;
  const key = protocol === 'http' ? `http:${hostnames[0]?.toLowerCase() ?? ''}${options.pathPrefix ?? ''}` : `${protocol}:${entry.port}`;
  return {
    key,
    path,
    hostnames,
    options,
    tlsMode: protocol === 'http' ? (typeof entry.tls === 'string' ? entry.tls : 'auto') : null,
    description: typeof entry.description === 'string' ? entry.description : undefined,
  };
}

/** The routes of a service's entries; two entries with one route are refused. */
function routesOf(service: ServiceRoutes): Route[] {
  const routes = service.entries.map((entry, i) => routeOf(entry, `services.${service.composeServiceName}.x-panel.hosting.${i}`));
  routes.forEach((route, i) => {
    const first = routes.findIndex((other) => other.key === route.key);
    if (first !== i) throw composeInvalid(`${route.path} repeats the route of hosting entry ${first} (${route.key})`, route.path);
  });
  return routes;
}

const isComposeOwned = (row: Hosting) => row.metadata?.composeOwned === true;

function routedNames(row: Hosting): string[] {
  const names = isMapping(row.options) ? plain((row.options as JsonObject).hostnames ?? null) : null;
  return Array.isArray(names) ? names.map((name) => String(name).toLowerCase()) : [];
}

/** A write of the routing columns: derived options over the row's own, provenance over client metadata. */
function routingColumns(route: Route, service: ServiceRoutes, row: Hosting | undefined, adopted: boolean) {
  const options: JsonObject = { ...((row?.options ?? {}) as JsonObject) };
  for (const key of DERIVED_OPTION_KEYS) delete options[key];
  Object.assign(options, route.options);
  const metadata: JsonObject = { ...((row?.metadata ?? {}) as JsonObject) };
  delete metadata.composeTlsMode;
  delete metadata.composeAdopted;
  Object.assign(metadata, { composeOwned: true, composeServiceName: service.composeServiceName, composeRoute: route.key });
  if (route.tlsMode !== null) metadata.composeTlsMode = route.tlsMode;
  if (adopted) metadata.composeAdopted = true;
  return {
    name: route.hostnames[0] ?? route.key,
    options,
    metadata,
    protocol: options.protocol as 'http' | 'tcp' | 'udp',
    ipId: options.bind === 'public' ? row?.ipId : null,
  };
}

function writeMirror(tx: Queryable, organizationId: string, hostingId: string, route: Route): void {
  try {
    writeHostnameMirror(tx, organizationId, hostingId, route.hostnames);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error.code === 'validation_failed') throw composeInvalid(`${route.path}: ${error.message}`, joinPath(route.path, 'hostnames'));
    throw error.relocated(joinPath(route.path, 'hostnames'), `${route.path}: `);
  }
}

/** Brings the compose-owned hostings of `services` in line with their entries (caller's transaction). */
export function reconcileHostings(tx: Queryable, organizationId: string, services: readonly ServiceRoutes[]): void {
  const planned = services.map((service) => ({ service, routes: routesOf(service) }));
  const rows = hostingsOfServices(tx, services.map((service) => service.serviceId));
  const owned = new Map<string, Hosting>(); // `<serviceId> <route>` -> compose-owned row
  for (const row of rows.filter(isComposeOwned)) {
    const wanted = planned.find(({ service }) => service.serviceId === row.serviceId)!;
    const route = String(row.metadata?.composeRoute ?? '');
    if (wanted.routes.some((candidate) => candidate.key === route) && !owned.has(`${row.serviceId} ${route}`)) {
      owned.set(`${row.serviceId} ${route}`, row);
      replaceHostnames(tx, row.id, organizationId, []); // rewritten below; lets routes trade hostnames
    } else {
      deleteHostingRow(tx, row.id); // its mirror rows and hosting-scope variables cascade
    }
  }
  const handMade = rows.filter((row) => !isComposeOwned(row));

  for (const { service, routes } of planned) {
    const previous = new Map<string, Route>();
    for (const route of service.previousEntries.map((entry) => routeOf(entry, ''))) if (!previous.has(route.key)) previous.set(route.key, route);
    for (const route of routes) {
      const row = owned.get(`${service.serviceId} ${route.key}`);
      let written: Hosting;
      if (row !== undefined) {
        const described = route.description !== undefined && route.description !== previous.get(route.key)?.description;
        written = updateHostingRow(tx, row.id, {
          ...routingColumns(route, service, row, row.metadata?.composeAdopted === true),
          description: described ? route.description : row.description,
        });
      } else {
        const lowered = new Set(route.hostnames.map((name) => name.toLowerCase()));
        const index = handMade.findIndex((candidate) => candidate.serviceId === service.serviceId && routedNames(candidate).some((name) => lowered.has(name)));
        const adopt = index >= 0 ? handMade.splice(index, 1)[0]! : undefined;
        written =
          adopt !== undefined
            ? updateHostingRow(tx, adopt.id, { ...routingColumns(route, service, adopt, true), description: adopt.description ?? route.description ?? null })
            : insertHosting(tx, { serviceId: service.serviceId, ...routingColumns(route, service, undefined, false), description: route.description ?? null });
      }
      writeMirror(tx, organizationId, written.id, route);
    }
  }
}
