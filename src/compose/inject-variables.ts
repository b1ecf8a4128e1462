/**
 * Resolved variables into a compiled service (spec, variable.is_secret/is_literal/is_for_build/
 * is_for_runtime). A variable replaces an entry of the same key the document itself sets: the
 * document holds the application's defaults, variables are the deployment's configuration.
 *
 * - Non-secret, forRuntime: `environment` (written as a mapping). forBuild: `build.args`.
 *   isLiteral doubles every `$` so Compose does not interpolate; otherwise `$OTHER` is left for
 *   Compose to expand.
 * - Secret: never a value in the document or an env file. Each becomes one file the daemon
 *   writes outside the project folder (mode 0600; naming.ts secretFileReference): a top-level
 *   `secrets: {<name>: {file}}` entry, and
 *   forRuntime mounts it at /run/secrets/<KEY> (`secrets: [{source: <name>, target: <KEY>}]`);
 *   forBuild passes it to the build as the build secret id <KEY> (Dockerfile
 *   `RUN --mount=type=secret,id=<KEY>`). A document `environment` entry of the same key is
 *   removed, so a default password cannot shadow the secret.
 * - forBuild on a service without `build` does nothing. Variables from wide scopes apply to
 *   every service, so only service- and hosting-scope ones (meant for this service) are warned.
 */
import { keyValueMapping } from './merge.ts';
import { allocateSecretNames } from './naming.ts';
import { isMapping, type JsonObject, type JsonValue } from './values.ts';
import type { ResolvedVariable } from './variables.ts';

/** A secret file the daemon must receive; its contents are the variable's sealed value. */
export interface CompiledSecret {
  name: string;
  variableId: string;
  serviceId: string;
  key: string;
}

interface PlannedService {
  key: string;
  service: JsonObject;
  row: { id: string };
  variables: readonly ResolvedVariable[];
}

export interface SecretPlan {
  secrets: CompiledSecret[];
  /** Secret file names of one service, by variable key. */
  namesFor(composeServiceName: string): ReadonlyMap<string, string>;
}

const hasBuild = (service: JsonObject) => service.build !== undefined && service.build !== null;

const needsFile = (variable: ResolvedVariable, service: JsonObject) =>
  variable.isSecret && (variable.forRuntime || (variable.forBuild && hasBuild(service)));

/** Names every secret file of the project; `taken` are the document's own secret names. */
export function planSecrets(services: readonly PlannedService[], taken: ReadonlySet<string>): SecretPlan {
  const requests: { composeServiceName: string; key: string; variableId: string; serviceId: string }[] = [];
  for (const { key, service, row, variables } of services) {
    for (const variable of variables) {
      if (needsFile(variable, service)) {
        requests.push({ composeServiceName: key, key: variable.key, variableId: variable.variableId, serviceId: row.id });
      }
    }
  }
  const names = allocateSecretNames(requests, taken);
  const byService = new Map<string, Map<string, string>>();
  const secrets = requests.map(({ composeServiceName, key, variableId, serviceId }, i) => {
    const name = names[i]!;
    let serviceNames = byService.get(composeServiceName);
    if (serviceNames === undefined) byService.set(composeServiceName, (serviceNames = new Map()));
    serviceNames.set(key, name);
    return { name, variableId, serviceId, key };
  });
  return { secrets, namesFor: (composeServiceName) => byService.get(composeServiceName) ?? new Map() };
}

const escapeDollars = (value: string) => (value.includes('$') ? value.replaceAll('$', () => '$$') : value);

export function injectVariables(
  service: JsonObject,
  path: string,
  variables: readonly ResolvedVariable[],
  secretNames: ReadonlyMap<string, string>,
  warnings: string[],
): void {
  if (variables.length === 0) return;
  const environment = keyValueMapping(service.environment ?? null);
  const build: JsonObject | undefined = !hasBuild(service)
    ? undefined
    : typeof service.build === 'string'
      ? { context: service.build }
      : { ...(service.build as JsonObject) };
  const args = build === undefined ? undefined : keyValueMapping(build.args ?? null);
  const runtimeSecrets: JsonObject[] = [];
  const buildSecrets: JsonObject[] = [];
  const unbuilt: string[] = [];

  for (const variable of variables) {
    const { key } = variable;
    const secretName = secretNames.get(key);
    if (variable.forBuild && build === undefined && (variable.scope === 'service' || variable.scope === 'hosting')) {
      unbuilt.push(key);
    }
    if (variable.isSecret) {
      if (secretName === undefined) continue;
      if (variable.forRuntime) {
        runtimeSecrets.push({ source: secretName, target: key });
        if (Object.hasOwn(environment, key)) {
          delete environment[key];
          warnings.push(`${path}.environment.${key} is removed: the secret variable is mounted at /run/secrets/${key} instead`);
        }
      }
      if (variable.forBuild && build !== undefined) buildSecrets.push({ source: secretName, target: key });
      continue;
    }
    const value = variable.isLiteral ? escapeDollars(variable.value ?? '') : (variable.value ?? '');
    if (variable.forRuntime) {
      const authored = environment[key];
      if (authored !== undefined && authored !== null && String(authored) !== value) {
        warnings.push(`${path}.environment.${key} is replaced by the ${variable.scope}-scope variable`);
      }
      environment[key] = value;
    }
    if (variable.forBuild && args !== undefined) args[key] = value;
  }

  if (unbuilt.length > 0) warnings.push(`${path} has no build section; build variables not used: ${unbuilt.join(', ')}`);
  if (service.environment !== undefined || Object.keys(environment).length > 0) service.environment = environment;
  if (build !== undefined && args !== undefined) {
    if (build.args !== undefined || Object.keys(args).length > 0) build.args = args;
    if (buildSecrets.length > 0) build.secrets = withSecrets(build.secrets, buildSecrets, `${path}.build`, warnings);
    service.build = build;
  }
  if (runtimeSecrets.length > 0) service.secrets = withSecrets(service.secrets, runtimeSecrets, path, warnings);
}

/**
 * The service's secrets plus ours; an authored entry mounted where one of ours is (a relative
 * target lands under /run/secrets/) gives way.
 */
function withSecrets(existing: JsonValue | undefined, added: JsonObject[], path: string, warnings: string[]): JsonValue[] {
  const targets = new Set(added.map((secret) => String(secret.target)));
  const kept = (Array.isArray(existing) ? existing : []).filter((entry) => {
    const target = String(isMapping(entry) ? (entry.target ?? entry.source) : entry).replace(/^\/run\/secrets\//, '');
    if (!targets.has(target)) return true;
    warnings.push(`${path}.secrets: the entry for ${target} is replaced by the secret variable of that key`);
    return false;
  });
  return [...kept, ...added];
}
