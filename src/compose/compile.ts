/**
 * The deploy compiler: project base + environment overlay + platform settings → one runtime
 * compose.yaml per server the plan uses (spec, Compose documents 4 and 8), each run by that
 * server's daemon. Pure: no database, no I/O.
 *
 * Steps: merge the overlay onto the base (mergeCompose), validate the result as a save would,
 * apply each service's `x-panel` (`principal` → `user`, `uid[:gid]` of the provisioned host
 * account, its name when no uid is known; the rest is read by the platform elsewhere and
 * removed, as is the root `x-panel`), then place every replica (planner/plan.ts). Per server:
 * - only the services placed there, a service with several ordinals there as clones
 *   (instances.ts), with references to services running elsewhere dropped;
 * - `deploy.replicas`, `deploy.mode`, `deploy.placement` and `scale` removed (the planner has
 *   applied them; the document says what runs on this server);
 * - the server's resolved variables (server-scope ones differ per server): non-secrets into
 *   `environment` (forRuntime) and `build.args` (forBuild), `$` doubled for literal ones;
 *   secrets only as files, and only those its services use (inject-variables.ts);
 * - container names per the project's containerNaming and platform labels (naming.ts);
 * - `x-panel.placement.server_id` at the root (Compose ignores `x-*` keys; the deploy preview
 *   shows it) and `name: pn-<environmentId>`, the project name the daemon runs it under;
 * - `driver: overlay` networks as bridges: routed over the organization's fabric with a subnet of
 *   their own on every server they span, with fixed container addresses and `extra_hosts` for
 *   the services elsewhere; plain bridges otherwise (overlay-networks.ts).
 * The text is written by writeComposeYaml (compose-yaml.ts), which every YAML reader (1.1 and
 * 1.2) reads back as the model.
 */
import type { FabricNetwork } from '../contract/fabric.ts';
import { DomainError, validationFailed } from '../lib/errors.ts';
import { writeComposeYaml } from './compose-yaml.ts';
import { composeServiceOf, servicesOnServer } from './instances.ts';
import { injectVariables, planSecrets, type CompiledSecret } from './inject-variables.ts';
import { composeInvalid } from './limits.ts';
import { mergeCompose } from './merge.ts';
import { type FabricAllocation, type FabricSubnet, OverlayNetworks } from './overlay-networks.ts';
import { applyPlatformLabels, type ContainerNaming, composeProjectName, customContainerName, secretFileReference, uuidContainerName } from './naming.ts';
import { type FabricReadiness, type Placement, type PlannerServer, planPlacement, type PreviousReplica } from './planner/plan.ts';
import { type StoredPolicy, validateCompose } from './validate.ts';
import { copyJson, isMapping, type JsonObject } from './values.ts';
import type { ResolvedVariable } from './variables.ts';

export type { CompiledSecret } from './inject-variables.ts';
export type { FabricAllocation, FabricSubnet } from './overlay-networks.ts';

export interface CompileServiceRow {
  id: string;
  composeServiceName: string;
  options?: { instances?: number | null } | null;
}

/** A provisioned system principal, by the alias the document's `x-panel.principals` uses. */
export interface CompilePrincipal {
  appliedUsername: string;
  uid?: number | null;
  gid?: number | null;
}

/** Where the environment may run: the planner's input besides the document. */
export interface PlacementContext {
  /** The environment pin or the project default. */
  anchorServerId: string;
  /** Every server of the organization, with labels and connection state. */
  servers: readonly PlannerServer[];
  /** Where each replica ran (the environment's container rows). */
  previous: readonly PreviousReplica[];
  /** The organization's overlay fabric: on, and where it is not ready. */
  fabric: FabricReadiness;
}

export interface CompileInput {
  /** project.options.compose.data (presentation is not passed). */
  base: JsonObject;
  /** environment.options.compose.data, when the environment has an overlay. */
  overlay?: JsonObject | null;
  organizationId: string;
  projectId: string;
  environmentId: string;
  placement: PlacementContext;
  containerNaming?: ContainerNaming;
  /** The environment's service rows; every service of the merged document needs one. */
  services: readonly CompileServiceRow[];
  /** Resolved variables by service id as seen on one server (resolveVariables with that server). */
  variablesOn: (serverId: string) => ReadonlyMap<string, readonly ResolvedVariable[]>;
  principals: Readonly<Record<string, CompilePrincipal>>;
  /** The Compose policy the merged document is held to (domain/compose/policy.ts decides it). */
  policy: StoredPolicy;
  /** The container range and subnets, when the fabric is on (a network spanning servers needs it). */
  fabric?: FabricAllocation;
  /** Ports tcp/udp hostings publish, by Compose service key (domain/ingress/host-ports.ts). */
  hostingPorts?: Readonly<Record<string, readonly HostingPublish[]>>;
}

/** A port a tcp/udp hosting publishes on every server its service runs on, at its bind scope's address there. */
export interface HostingPublish {
  published: number;
  target: number;
  protocol: 'tcp' | 'udp';
  /** The address on `serverId` (null: every address); throws the 422 when the server has none. */
  addressOn: (serverId: string) => string | null;
  /** The hosting, for messages. */
  hosting: string;
}

/** A container row deploy pre-allocates (status pending). */
export interface CompiledContainer {
  serviceId: string;
  /** The Compose service it runs under: the key, or `<key>-<ordinal>` for one of several on its server. */
  composeServiceName: string;
  containerName: string;
  role: 'service';
  ordinal: number;
}

/** The runtime document of one server. */
export interface ServerDocument {
  serverId: string;
  yaml: string;
  model: JsonObject;
  /** Files the daemon must receive (as pndaemon envelopes), named by secretFileReference; no contents. */
  secrets: CompiledSecret[];
  containers: CompiledContainer[];
  /** The networks of this document that span servers over the fabric (the daemon's routes and forward rules). */
  fabric: FabricNetwork[];
}

export interface CompileResult {
  /** Compose project name, `pn-<environmentId>`. */
  project: string;
  placement: Placement;
  /** One per server the plan uses, the anchor's first (none when nothing is placed). */
  documents: ServerDocument[];
  /** The environment's subnets of spanning networks after this plan: what the deploy keeps. */
  subnets: FabricSubnet[];
  warnings: string[];
}

interface CompiledService {
  key: string;
  service: JsonObject;
  row: CompileServiceRow;
  /** Its authored container_name (before naming replaced it). */
  authoredName: string | undefined;
}

export function compile(input: CompileInput): CompileResult {
  const project = composeProjectName(input.environmentId);
  const merged = mergeCompose(input.base, input.overlay ?? undefined);
  validateCompose(merged, { policy: input.policy });
  const warnings: string[] = [];

  const rows = new Map(input.services.map((row) => [row.composeServiceName, row]));
  const services = isMapping(merged.services) ? merged.services : {};
  const serviceList: CompiledService[] = Object.entries(services).map(([key, service]) => {
    const row = rows.get(key);
    if (row === undefined) throw composeInvalid(`services.${key} has no service record in this environment`, `services.${key}`);
    const authored = (service as JsonObject).container_name;
    applyServiceXPanel(service as JsonObject, `services.${key}`, input.principals, warnings);
    return { key, service: service as JsonObject, row, authoredName: authored === undefined || authored === null ? undefined : String(authored) };
  });

  const placement = planPlacement({
    document: merged,
    instances: new Map(serviceList.map(({ key, row }) => [key, instanceCount(row)])),
    ...input.placement,
  });
  warnings.push(...placement.warnings);
  if (input.containerNaming !== 'custom') {
    for (const { key, authoredName } of serviceList) {
      if (authoredName !== undefined) warnings.push(`services.${key}.container_name is replaced: the project names containers by service id`);
    }
  }
  for (const { service } of serviceList) removeScheduling(service);
  const overlayNetworks = new OverlayNetworks(merged, placement, input.fabric);

  const names = new Map(input.placement.servers.map((server) => [server.id, server.name]));
  const documents = placement.servers.map((serverId) =>
    compileServer(input, { project, merged, serviceList, placement, overlayNetworks, serverId, serverName: names.get(serverId) ?? serverId, copy: placement.servers.length > 1 }, warnings),
  );
  if (typeof merged.name === 'string' && merged.name !== project) {
    warnings.push(`name "${merged.name}" is replaced by the platform project name ${project}`);
  }
  return { project, placement, documents, subnets: overlayNetworks.subnets, warnings: [...new Set(warnings)] };
}

interface ServerTarget {
  project: string;
  merged: JsonObject;
  serviceList: readonly CompiledService[];
  placement: Placement;
  overlayNetworks: OverlayNetworks;
  serverId: string;
  serverName: string;
  /** Several servers share the merged services: each works on its own copy. */
  copy: boolean;
}

function compileServer(input: CompileInput, target: ServerTarget, warnings: string[]): ServerDocument {
  const { project, merged, serviceList, placement, overlayNetworks, serverId } = target;
  const naming = input.containerNaming ?? 'uuid';
  const ordinals = placement.byServer.get(serverId)!;
  const variables = input.variablesOn(serverId);
  const here = serviceList
    .filter(({ key }) => ordinals.has(key))
    .map((entry) => ({ ...entry, service: target.copy ? (copyJson(entry.service) as JsonObject) : entry.service, variables: variables.get(entry.row.id) ?? [] }));

  const topSecrets: JsonObject = isMapping(merged.secrets) ? { ...merged.secrets } : {};
  const secretPlan = planSecrets(here, new Set(Object.keys(topSecrets)));
  for (const { key, service, variables: resolved } of here) injectVariables(service, `services.${key}`, resolved, secretPlan.namesFor(key), warnings);
  for (const secret of secretPlan.secrets) topSecrets[secret.name] = { file: secretFileReference(target.project, secret.name) };

  const placed: JsonObject = Object.fromEntries(here.map(({ key, service }) => [key, service]));
  const compiledServices = servicesOnServer(placed, ordinals, new Set(serviceList.map(({ key }) => key)), target.serverName, warnings);
  const containers: CompiledContainer[] = [];
  for (const { key, row, authoredName } of here) {
    const local = ordinals.get(key)!;
    const total = placement.services.get(key)!.length;
    for (const ordinal of local) {
      const composeServiceName = composeServiceOf(key, ordinal, local);
      const service = compiledServices[composeServiceName] as JsonObject;
      const containerName =
        naming === 'uuid'
          ? uuidContainerName(row.id, ordinal)
          : customContainerName({ project, composeServiceName: key, ordinal, instances: total, authored: authoredName });
      service.container_name = containerName;
      overlayNetworks.compileService(service, key, ordinal, serverId, warnings);
      publishHostingPorts(service, key, input.hostingPorts?.[key] ?? [], local.length, serverId, target.serverName);
      const dropped = applyPlatformLabels(service, {
        organizationId: input.organizationId,
        projectId: input.projectId,
        environmentId: input.environmentId,
        serviceId: row.id,
        composeServiceName: key,
        role: 'service',
        ordinal: String(ordinal),
      });
      if (dropped.length > 0) warnings.push(`services.${key}.labels: reserved labels removed: ${dropped.join(', ')}`);
      containers.push({ serviceId: row.id, composeServiceName, containerName, role: 'service', ordinal });
    }
  }

  const model: JsonObject = { name: project };
  for (const [key, value] of Object.entries(merged)) {
    if (key === 'name' || key === 'x-panel' || key === 'secrets') continue;
    model[key] = key === 'services' ? compiledServices : key === 'networks' ? overlayNetworks.compileNetworks(value, serverId, warnings) : value;
  }
  if (Object.keys(topSecrets).length > 0) model.secrets = topSecrets;
  model['x-panel'] = { placement: { server_id: serverId } };
  return { serverId, yaml: writeComposeYaml(model), model, secrets: secretPlan.secrets, containers, fabric: overlayNetworks.networksOn(serverId, merged) };
}

/**
 * Appends what tcp/udp hostings publish to the service's `ports`. One host port takes one
 * container: a service with several replicas on one server cannot publish it.
 */
function publishHostingPorts(service: JsonObject, key: string, ports: readonly HostingPublish[], replicasHere: number, serverId: string, serverName: string): void {
  if (ports.length === 0) return;
  if (replicasHere > 1) {
    throw new DomainError('host_port_conflict', `services.${key} runs ${replicasHere} replicas on server ${serverName}, and ${ports[0]!.hosting} publishes one host port: place them on distinct servers or publish a port range`, `services.${key}`);
  }
  const authored = Array.isArray(service.ports) ? service.ports : [];
  service.ports = [
    ...authored,
    ...ports.map((port) => {
      const address = port.addressOn(serverId);
      return { target: port.target, published: String(port.published), protocol: port.protocol, ...(address === null ? {} : { host_ip: address }) };
    }),
  ];
}

/** Applies and removes the service's `x-panel`. */
function applyServiceXPanel(service: JsonObject, path: string, principals: CompileInput['principals'], warnings: string[]): void {
  const xPanel = service['x-panel'];
  delete service['x-panel'];
  if (isMapping(xPanel) && typeof xPanel.principal === 'string') {
    const alias = xPanel.principal;
    const principal = Object.hasOwn(principals, alias) ? principals[alias] : undefined;
    if (principal === undefined) {
      throw composeInvalid(`${path}.x-panel.principal "${alias}" has no provisioned principal`, `${path}.x-panel.principal`);
    }
    const user = userOf(principal);
    if (principal.uid == null) {
      warnings.push(`${path} runs as user name ${user}: its uid is not known, so the name must exist in the image`);
    }
    if (service.user !== undefined && service.user !== null && String(service.user) !== user) {
      warnings.push(`${path}.user is replaced by principal ${alias} (${user})`);
    }
    service.user = user;
  }
}

function userOf({ appliedUsername, uid, gid }: CompilePrincipal): string {
  if (uid == null) return appliedUsername;
  return gid == null ? String(uid) : `${uid}:${gid}`;
}

/** What the planner has applied leaves the document: each server's says what runs there. */
function removeScheduling(service: JsonObject): void {
  delete service.scale;
  if (!isMapping(service.deploy)) return;
  const { replicas: _replicas, mode: _mode, placement: _placement, ...rest } = service.deploy;
  if (Object.keys(rest).length > 0) service.deploy = rest;
  else delete service.deploy;
}

function instanceCount(row: CompileServiceRow): number {
  const instances = row.options?.instances ?? 1;
  if (!Number.isInteger(instances) || instances < 1) {
    throw validationFailed(`service ${row.composeServiceName}: options.instances must be a positive integer`, 'options.instances');
  }
  return instances;
}
