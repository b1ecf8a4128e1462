/**
 * The deploy plan: everything a deploy of one environment needs, computed without side effects
 * (the deploy endpoint raises the generation and enqueues; the preview shows it).
 *
 * - Anchor (spec, Deploy resolution): the environment's pin, else the project's
 *   options.defaultServerId, else 409 server_placement_required. A server outside the
 *   environment's organization (or gone) never anchors a deploy: the same 409.
 * - Placement (src/compose/planner): the organization's servers with their labels and
 *   connection state, and where each replica ran before (the environment's container rows).
 *   The organization's overlay fabric: whether it is on and where it is not converged (a
 *   network spanning such a server is turbofabric_required), and its container range with the
 *   subnets the environment holds and those others hold (src/domain/fabric).
 * - Variables of the seven scopes (organization, workspace, project, environment, service, each
 *   service's hostings oldest first, and the server) resolved per service and per server
 *   (src/compose/variables.ts); secrets carry no value in the provenance.
 * - Principals through the services' tenancies, by compose alias (plan-inputs.ts).
 * - What tcp/udp hostings publish, at their bind scope's address on each server (host-ports.ts).
 * - compile() of base + overlay with the project's containerNaming and its Compose policy
 *   (domain/compose/policy.ts): one document per server. Secret files are opened (memory only) by
 *   planDeploy alone, once per variable, for every server that needs them: the preview never
 *   opens a secret.
 * - Servers that ran the environment and are not in the plan: each gets a stop of the project.
 */
import { type CompileResult, compile } from '../../compose/compile.ts';
import type { StoredPolicy } from '../../compose/validate.ts';
import type { ContainerNaming } from '../../compose/naming.ts';
import type { PreviousReplica } from '../../compose/planner/plan.ts';
import { type ResolvedVariable, resolveVariables } from '../../compose/variables.ts';
import { EnvelopeError, type KeyRing, openSecret } from '../../crypto/index.ts';
import type { Db } from '../../db/client.ts';
import type { Project, Server } from '../../db/schema/index.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { type Access, type Actor, authorize } from '../actor.ts';
import { plannerServer, resolvePlacement } from './placement.ts';
import { dataOf, storedDocument } from '../compose/documents.ts';
import { composePolicyOf } from '../compose/policy.ts';
import { hostingsOfServices, servicesOfEnvironment } from '../compose/queries.ts';
import { containersOfEnvironment, serversOfEnvironment } from '../deployments/queries.ts';
import { findEnvironment, type OwnedEnvironment } from '../environments/queries.ts';
import { subnetsOfEnvironment, subnetsTakenElsewhere } from '../fabric/queries.ts';
import { fabricReadiness } from '../fabric/service.ts';
import { hostingPublishes } from '../ingress/host-ports.ts';
import { findOrganization } from '../organizations/queries.ts';
import { findProject } from '../projects/queries.ts';
import { refusePlatformProject } from '../projects/service.ts';
import { serversOfOrganization } from '../servers/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { variableValueOwner } from '../variables/secrets.ts';
import { principalsFor, variablesFor } from './plan-inputs.ts';

export interface PlannedServer {
  id: string;
  name: string;
  isLocal: boolean;
}

export interface DeployPlan {
  environment: { id: string; projectId: string; organizationId: string; generation: number };
  /** The anchor (the pin or the project default). */
  server: { id: string; organizationId: string; isLocal: boolean; name: string };
  /** The placement and one runtime document per server it uses, the anchor's first. */
  compiled: CompileResult;
  /** The servers of the documents, in their order. */
  servers: PlannedServer[];
  /** Servers that ran the environment and are no longer in its plan: each gets a stop. */
  dropped: PlannedServer[];
  /** Opened pnsecret values per server, one per compiled secret file there: memory only, never logged. */
  secrets: ReadonlyMap<string, { name: string; plaintext: string }[]>;
  /** Resolved variables per service id (on the server of its first replica); secrets' value is null. */
  provenance: Record<string, ResolvedVariable[]>;
  /** The Compose policy the documents were compiled under; each daemon checks them against it again. */
  policy: StoredPolicy;
  warnings: string[];
}

/** The plan without opened secrets (what the preview shows). */
export type PreparedDeploy = Omit<DeployPlan, 'secrets'> & {
  envelopes: ReadonlyMap<string, string>;
  services: { id: string; composeServiceName: string }[];
};

const plannedServer = (row: Server): PlannedServer => ({ id: row.id, name: row.name, isLocal: row.isLocal });

/** Reads and compiles; no writes, no secret opened. `access` is what the caller must hold. */
export function prepareDeploy(db: Queryable, actor: Actor, environmentId: string, access: Access = 'read'): PreparedDeploy {
  const environment = findEnvironment(db, environmentId);
  if (!environment) throw notFound('environment');
  authorize(actor, environment.organizationId, access, 'environment');
  const project = findProject(db, environment.projectId)!;
  refusePlatformProject(project);
  const organization = findOrganization(db, environment.organizationId)!;
  const anchor = resolvePlacement(db, environment, project);
  const organizationServers = serversOfOrganization(db, organization.id);
  const serverRows = new Map(organizationServers.map((row) => [row.id, row]));

  const services = servicesOfEnvironment(db, environment.id);
  const serviceIds = services.map((row) => row.id);
  const hostings = hostingsOfServices(db, serviceIds);
  const { rows, envelopes } = variablesFor(db, {
    organizationId: organization.id,
    workspaceId: project.workspaceId,
    projectId: project.id,
    environmentId: environment.id,
    serviceIds,
    hostingIds: hostings.map((row) => row.id),
    serverIds: organizationServers.map((row) => row.id),
  });
  const chains = services.map((row) => ({
    serviceId: row.id,
    organizationId: organization.id,
    workspaceId: project.workspaceId,
    projectId: project.id,
    environmentId: environment.id,
    hostingIds: hostings.filter((hosting) => hosting.serviceId === row.id).map((hosting) => hosting.id),
  }));
  const resolved = new Map<string, Map<string, ResolvedVariable[]>>();
  const variablesOn = (serverId: string) => {
    let variables = resolved.get(serverId);
    if (variables === undefined) resolved.set(serverId, (variables = resolveVariables(rows, chains, serverId)));
    return variables;
  };
  const warnings: string[] = [];
  const principals = principalsFor(db, serviceIds, warnings);

  const keyOf = new Map(services.map((row) => [row.id, row.composeServiceName]));
  const previous: PreviousReplica[] = containersOfEnvironment(db, environment.id)
    .filter((row) => row.role === 'service' && keyOf.has(row.serviceId))
    .map((row) => ({ service: keyOf.get(row.serviceId)!, ordinal: row.ordinal, serverId: row.serverId }));

  const compileUnder = (held: StoredPolicy) =>
    compile({
      base: dataOf(storedDocument(project.options)),
      overlay: storedDocument(environment.options)?.data ?? null,
      organizationId: organization.id,
      projectId: project.id,
      environmentId: environment.id,
      placement: { anchorServerId: anchor.id, servers: organizationServers.map(plannerServer), previous, fabric: fabricReadiness(db, organization) },
      containerNaming: project.options?.containerNaming === 'custom' ? 'custom' : ('uuid' satisfies ContainerNaming),
      services: services.map((row) => ({ id: row.id, composeServiceName: row.composeServiceName, options: row.options })),
      variablesOn,
      principals,
      policy: held,
      hostingPorts: hostingPublishes(db, hostings, services, serverRows),
      fabric: {
        containerRange: organization.fabricContainerRange,
        subnets: subnetsOfEnvironment(db, environment.id),
        taken: subnetsTakenElsewhere(db, organization.id, environment.id),
      },
    });
  // The plan decides the servers; where one is Panel's own, host access also needs the superadmin's grant.
  let policy = composePolicyOf(db, project);
  let compiled = compileUnder(policy);
  const onServers = composePolicyOf(db, project, compiled.placement.servers.map((id) => serverRows.get(id)!));
  if (onServers.hostAccess !== policy.hostAccess) {
    policy = onServers;
    compiled = compileUnder(policy);
  }
  const inPlan = new Set(compiled.placement.servers);
  const dropped = serversOfEnvironment(db, environment.id).filter((id) => !inPlan.has(id) && serverRows.has(id));
  const provenance = Object.fromEntries(
    services.map((row) => {
      const first = compiled.placement.services.get(row.composeServiceName)?.[0]?.serverId ?? anchor.id;
      return [row.id, variablesOn(first).get(row.id) ?? []];
    }),
  );
  return {
    environment: { id: environment.id, projectId: project.id, organizationId: organization.id, generation: environment.generation },
    server: { id: anchor.id, organizationId: anchor.organizationId, isLocal: anchor.isLocal, name: anchor.name },
    compiled,
    servers: compiled.placement.servers.map((id) => plannedServer(serverRows.get(id)!)),
    dropped: dropped.map((id) => plannedServer(serverRows.get(id)!)),
    provenance,
    policy,
    warnings: [...warnings, ...compiled.warnings],
    envelopes,
    services: services.map(({ id, composeServiceName }) => ({ id, composeServiceName })),
  };
}

/**
 * The plan the deploy endpoint enqueues. Reads one consistent snapshot. `access` defaults to
 * read; the deploy endpoint passes 'write'.
 */
export function planDeploy(deps: { db: Db; keyring: KeyRing }, actor: Actor, environmentId: string, access: Access = 'read'): DeployPlan {
  const { envelopes, services: _services, ...prepared } = deps.db.transaction((tx) => prepareDeploy(tx, actor, environmentId, access));
  const opened = new Map<string, string>();
  const open = (variableId: string, key: string) => {
    let plaintext = opened.get(variableId);
    if (plaintext !== undefined) return plaintext;
    try {
      plaintext = openSecret(deps.keyring, envelopes.get(variableId)!, variableValueOwner(variableId));
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      throw conflict('secret_unreadable', `secret variable ${key} (${variableId}) cannot be opened with the current key ring; set its value again`);
    }
    opened.set(variableId, plaintext);
    return plaintext;
  };
  const secrets = new Map(
    prepared.compiled.documents.map((document) => [document.serverId, document.secrets.map(({ name, variableId, key }) => ({ name, plaintext: open(variableId, key) }))]),
  );
  return { ...prepared, secrets };
}
