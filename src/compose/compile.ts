/**
 * The deploy compiler: project base + environment overlay + platform settings → the ONE runtime
 * compose.yaml a daemon writes and runs (spec, Compose documents 4). Pure: no database, no I/O.
 *
 * Steps: merge the overlay onto the base (mergeCompose), validate the result as a save would,
 * then per service:
 * - `x-panel.principal` → `user` (`uid[:gid]` of the provisioned host account, its name when no
 *   uid is known); the rest of `x-panel` (serviceKind, hosting, cron, php, source) is read by
 *   the platform elsewhere and is removed here, as is the root `x-panel`;
 * - resolved variables (variables.ts): non-secrets into `environment` (forRuntime) and
 *   `build.args` (forBuild), `$` doubled for literal ones; secrets only as files (injectVariables);
 * - `deploy.replicas`/`scale` above 1 are dropped: one server runs `options.instances`
 *   (instances.ts), the planner decides replicas across servers;
 * - container names per the project's containerNaming and platform labels (naming.ts).
 * The root records `x-panel.placement.server_id` (Compose ignores `x-*` keys; the deploy preview
 * shows it) and `name: pn-<environmentId>`, the project name the daemon runs it under.
 * The text is written by writeComposeYaml (compose-yaml.ts), which reads back as the same model
 * as stringifyComposeModel's output but is about a hundred times faster on large projects.
 */
import { validationFailed } from '../lib/errors.ts';
import { writeComposeYaml } from './compose-yaml.ts';
import { cloneKey, cloneInstances } from './instances.ts';
import { injectVariables, planSecrets, type CompiledSecret } from './inject-variables.ts';
import { composeInvalid } from './limits.ts';
import { mergeCompose } from './merge.ts';
import { applyPlatformLabels, type ContainerNaming, composeProjectName, customContainerName, uuidContainerName } from './naming.ts';
import { type StoredPolicy, validateCompose } from './validate.ts';
import { isMapping, type JsonObject } from './values.ts';
import type { ResolvedVariable } from './variables.ts';

export type { CompiledSecret } from './inject-variables.ts';

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

export interface CompileInput {
  /** project.options.compose.data (presentation is not passed). */
  base: JsonObject;
  /** environment.options.compose.data, when the environment has an overlay. */
  overlay?: JsonObject | null;
  organizationId: string;
  projectId: string;
  environmentId: string;
  /** The server this document is compiled for (the environment pin or the project default). */
  serverId: string;
  containerNaming?: ContainerNaming;
  /** The environment's service rows; every service of the merged document needs one. */
  services: readonly CompileServiceRow[];
  /** Resolved variables by service id (resolveVariables). */
  variables: ReadonlyMap<string, readonly ResolvedVariable[]>;
  principals: Readonly<Record<string, CompilePrincipal>>;
  /** The Compose policy the merged document is held to (domain/compose/policy.ts decides it). */
  policy: StoredPolicy;
}

/** A container row deploy pre-allocates (status pending). */
export interface CompiledContainer {
  serviceId: string;
  /** The Compose service it runs under: the key, or `<key>-<ordinal>` for a multi-instance clone. */
  composeServiceName: string;
  containerName: string;
  role: 'service';
  ordinal: number;
}

export interface CompileResult {
  /** Compose project name, `pn-<environmentId>`. */
  project: string;
  yaml: string;
  model: JsonObject;
  /** Files the daemon must receive (as pndaemon envelopes) in ./secrets/<name>; no contents. */
  secrets: CompiledSecret[];
  containers: CompiledContainer[];
  warnings: string[];
}

export function compile(input: CompileInput): CompileResult {
  const project = composeProjectName(input.environmentId);
  const naming = input.containerNaming ?? 'uuid';
  const merged = mergeCompose(input.base, input.overlay ?? undefined);
  validateCompose(merged, { policy: input.policy });
  const warnings: string[] = [];

  const rows = new Map(input.services.map((row) => [row.composeServiceName, row]));
  const services = isMapping(merged.services) ? merged.services : {};
  const serviceList = Object.entries(services).map(([key, service]) => {
    const row = rows.get(key);
    if (row === undefined) throw composeInvalid(`services.${key} has no service record in this environment`, `services.${key}`);
    return { key, service: service as JsonObject, row, variables: input.variables.get(row.id) ?? [] };
  });

  const topSecrets: JsonObject = isMapping(merged.secrets) ? merged.secrets : {};
  const secretPlan = planSecrets(serviceList, new Set(Object.keys(topSecrets)));
  const instances = new Map<string, number>();
  for (const { key, service, row, variables } of serviceList) {
    const path = `services.${key}`;
    applyServiceXPanel(service, path, input.principals, warnings);
    injectVariables(service, path, variables, secretPlan.namesFor(key), warnings);
    dropReplicas(service, path, warnings);
    instances.set(key, instanceCount(row));
  }
  for (const secret of secretPlan.secrets) topSecrets[secret.name] = { file: `./secrets/${secret.name}` };

  const compiledServices = cloneInstances(services, instances, warnings);
  const containers: CompiledContainer[] = [];
  for (const { key, service: authored, row } of serviceList) {
    const count = instances.get(key)!;
    const authoredName = authored.container_name;
    if (naming === 'uuid' && authoredName !== undefined && authoredName !== null) {
      warnings.push(`services.${key}.container_name is replaced: the project names containers by service id`);
    }
    for (let ordinal = 1; ordinal <= count; ordinal++) {
      const composeServiceName = count > 1 ? cloneKey(key, ordinal) : key;
      const service = compiledServices[composeServiceName] as JsonObject;
      const containerName =
        naming === 'uuid'
          ? uuidContainerName(row.id, ordinal)
          : customContainerName({ project, composeServiceName: key, ordinal, instances: count, authored: authoredName == null ? undefined : String(authoredName) });
      service.container_name = containerName;
      const dropped = applyPlatformLabels(service, {
        organizationId: input.organizationId,
        projectId: input.projectId,
        environmentId: input.environmentId,
        serviceId: row.id,
        composeServiceName: key,
        role: 'service',
        ordinal: String(ordinal),
      });
      if (ordinal === 1 && dropped.length > 0) warnings.push(`services.${key}.labels: reserved labels removed: ${dropped.join(', ')}`);
      containers.push({ serviceId: row.id, composeServiceName, containerName, role: 'service', ordinal });
    }
  }

  if (typeof merged.name === 'string' && merged.name !== project) {
    warnings.push(`name "${merged.name}" is replaced by the platform project name ${project}`);
  }
  const model: JsonObject = { name: project };
  for (const [key, value] of Object.entries(merged)) {
    if (key === 'name' || key === 'x-panel' || key === 'secrets') continue;
    model[key] = key === 'services' ? compiledServices : value;
  }
  if (Object.keys(topSecrets).length > 0) model.secrets = topSecrets;
  model['x-panel'] = { placement: { server_id: input.serverId } };

  return { project, yaml: writeComposeYaml(model), model, secrets: secretPlan.secrets, containers, warnings };
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

/** Compose refuses container_name with several replicas; one server runs options.instances. */
function dropReplicas(service: JsonObject, path: string, warnings: string[]): void {
  const deploy = service.deploy;
  if (isMapping(deploy) && Number(deploy.replicas) > 1) {
    warnings.push(`${path}.deploy.replicas (${deploy.replicas}) is not run on one server; set the service's instances instead`);
    const { replicas: _replicas, ...rest } = deploy;
    service.deploy = rest;
  }
  if (Number(service.scale) > 1) {
    warnings.push(`${path}.scale (${service.scale}) is not run on one server; set the service's instances instead`);
    delete service.scale;
  }
}

function instanceCount(row: CompileServiceRow): number {
  const instances = row.options?.instances ?? 1;
  if (!Number.isInteger(instances) || instances < 1) {
    throw validationFailed(`service ${row.composeServiceName}: options.instances must be a positive integer`, 'options.instances');
  }
  return instances;
}
