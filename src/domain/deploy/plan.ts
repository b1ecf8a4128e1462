/**
 * The deploy plan: everything a deploy of one environment needs, computed without side effects
 * (the deploy endpoint raises the generation and enqueues; the preview shows it).
 *
 * - Server (spec, Deploy resolution): the environment's pin, else the project's
 *   options.defaultServerId, else 409 server_placement_required. A server outside the
 *   environment's organization (or gone) never anchors a deploy: the same 409.
 * - Variables of the seven scopes (organization, workspace, project, environment, service, each
 *   service's hostings oldest first, and the target server) resolved per service
 *   (src/compose/variables.ts); secrets carry no value in the provenance.
 * - Principals through the services' tenancies, by compose alias (plan-inputs.ts).
 * - compile() of base + overlay with the project's containerNaming and the organization's
 *   host-access opt-in. Secret files are opened (memory only) by planDeploy alone: the preview
 *   never opens a secret.
 */
import { type CompileResult, compile } from '../../compose/compile.ts';
import type { ContainerNaming } from '../../compose/naming.ts';
import { resolveVariables, type ResolvedVariable } from '../../compose/variables.ts';
import { EnvelopeError, type KeyRing, openSecret } from '../../crypto/index.ts';
import type { Db } from '../../db/client.ts';
import type { Project, Server } from '../../db/schema/index.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { type Access, type Actor, authorize } from '../actor.ts';
import { dataOf, storedDocument } from '../compose/documents.ts';
import { hostingsOfServices, servicesOfEnvironment } from '../compose/queries.ts';
import { findEnvironment, type OwnedEnvironment } from '../environments/queries.ts';
import { findOrganization } from '../organizations/queries.ts';
import { findProject } from '../projects/queries.ts';
import { refusePlatformProject } from '../projects/service.ts';
import { findServer } from '../servers/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { variableValueOwner } from '../variables/secrets.ts';
import { principalsFor, variablesFor } from './plan-inputs.ts';

export interface DeployPlan {
  environment: { id: string; projectId: string; organizationId: string; generation: number };
  server: { id: string; organizationId: string; isLocal: boolean; name: string };
  compiled: CompileResult;
  /** Opened pnsecret values, one per compiled secret file: memory only, never logged. */
  secrets: { name: string; plaintext: string }[];
  /** Resolved variables per service id; secrets' value is null. */
  provenance: Record<string, ResolvedVariable[]>;
  warnings: string[];
}

/** The plan without opened secrets (what the preview shows). */
export type PreparedDeploy = Omit<DeployPlan, 'secrets'> & {
  envelopes: ReadonlyMap<string, string>;
  services: { id: string; composeServiceName: string }[];
};

/** The server a deploy of the environment is anchored on (spec, Deploy resolution). */
export function resolvePlacement(db: Queryable, environment: OwnedEnvironment, project: Project): Server {
  const serverId = environment.serverId ?? (typeof project.options?.defaultServerId === 'string' ? project.options.defaultServerId : null);
  if (serverId === null) {
    throw conflict(
      'server_placement_required',
      "the environment has no server pin and the project no default server: set the environment's serverId or the project's options.defaultServerId",
    );
  }
  const server = findServer(db, serverId);
  if (!server || server.organizationId !== environment.organizationId) {
    throw conflict('server_placement_required', 'the placement server is not a server of this organization: set another one');
  }
  return server;
}

/** Reads and compiles; no writes, no secret opened. `access` is what the caller must hold. */
export function prepareDeploy(db: Queryable, actor: Actor, environmentId: string, access: Access = 'read'): PreparedDeploy {
  const environment = findEnvironment(db, environmentId);
  if (!environment) throw notFound('environment');
  authorize(actor, environment.organizationId, access, 'environment');
  const project = findProject(db, environment.projectId)!;
  refusePlatformProject(project);
  const organization = findOrganization(db, environment.organizationId)!;
  const server = resolvePlacement(db, environment, project);

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
    serverId: server.id,
  });
  const chains = services.map((row) => ({
    serviceId: row.id,
    organizationId: organization.id,
    workspaceId: project.workspaceId,
    projectId: project.id,
    environmentId: environment.id,
    hostingIds: hostings.filter((hosting) => hosting.serviceId === row.id).map((hosting) => hosting.id),
  }));
  const variables = resolveVariables(rows, chains, server.id);
  const warnings: string[] = [];
  const principals = principalsFor(db, serviceIds, warnings);

  const compiled = compile({
    base: dataOf(storedDocument(project.options)),
    overlay: storedDocument(environment.options)?.data ?? null,
    organizationId: organization.id,
    projectId: project.id,
    environmentId: environment.id,
    serverId: server.id,
    containerNaming: project.options?.containerNaming === 'custom' ? 'custom' : ('uuid' satisfies ContainerNaming),
    services: services.map((row) => ({ id: row.id, composeServiceName: row.composeServiceName, options: row.options })),
    variables,
    principals,
    allowHostAccess: organization.isHostAccessAllowed,
  });
  return {
    environment: { id: environment.id, projectId: project.id, organizationId: organization.id, generation: environment.generation },
    server: { id: server.id, organizationId: server.organizationId, isLocal: server.isLocal, name: server.name },
    compiled,
    provenance: Object.fromEntries(serviceIds.map((id) => [id, variables.get(id) ?? []])),
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
  const secrets = prepared.compiled.secrets.map(({ name, variableId, key }) => {
    try {
      return { name, plaintext: openSecret(deps.keyring, envelopes.get(variableId)!, variableValueOwner(variableId)) };
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      throw conflict('secret_unreadable', `secret variable ${key} (${variableId}) cannot be opened with the current key ring; set its value again`);
    }
  });
  return { ...prepared, secrets };
}
