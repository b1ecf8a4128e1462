/**
 * Several containers of one service on one server: a service's replicas the planner put there
 * (or an anchored service's `options.instances`/`scale`).
 *
 * Compose refuses `container_name` together with `deploy.replicas` > 1, and every compiled
 * container needs its own name (the pre-allocated container row, `<service id>-<ordinal>`). So
 * a service with several ordinals on a server is written as one Compose service per ordinal,
 * `<key>-<ordinal>` (the ordinals the planner gave this server, e.g. web-1 and web-3),
 * identical but for their names and ordinal label. A service with one ordinal on the server
 * keeps its key. To keep the document working as authored:
 *
 * - each clone joins its networks with the alias `<key>`, so `http://<key>` still resolves (the
 *   engine's DNS answers with every clone);
 * - references to `<key>` from other services are rewritten: `depends_on` and `links` name every
 *   clone, `network_mode`/`ipc`/`pid: service:<key>` and `volumes_from` name the first clone
 *   (same-document `extends` were resolved before, by mergeCompose);
 * - references to a service the plan runs on no container of this server (`depends_on`,
 *   `links`) are dropped, with a warning: Compose refuses a document naming an absent service,
 *   and waits only for services of its own server. Namespaces and volumes_from cannot point
 *   elsewhere: the planner colocates them.
 */
import { composeInvalid } from './limits.ts';
import { copyJson, isMapping, type JsonObject, type JsonValue } from './values.ts';

export const cloneKey = (key: string, ordinal: number) => `${key}-${ordinal}`;

/** The Compose service a container of `key` with `ordinal` runs under, given the ordinals on its server. */
export const composeServiceOf = (key: string, ordinal: number, ordinalsHere: readonly number[]) =>
  ordinalsHere.length > 1 ? cloneKey(key, ordinal) : key;

/**
 * The services placed on one server (`ordinals`: key → its ordinals there, in document order of
 * `services`), with several ordinals written as clones and references rewritten. `allKeys` are
 * every service of the document, so a clone name never shadows one placed elsewhere.
 */
export function servicesOnServer(
  services: JsonObject,
  ordinals: ReadonlyMap<string, readonly number[]>,
  allKeys: ReadonlySet<string>,
  serverName: string,
  warnings: string[],
): JsonObject {
  const cloned: JsonObject = {};
  for (const [key, service] of Object.entries(services)) {
    const here = ordinals.get(key);
    if (here === undefined) continue;
    if (here.length <= 1 || !isMapping(service)) {
      cloned[key] = service;
      continue;
    }
    for (const ordinal of here) {
      const name = cloneKey(key, ordinal);
      if (allKeys.has(name)) {
        throw composeInvalid(`services.${key} runs several containers on one server, named ${key}-<ordinal>, but services.${name} exists`, `services.${name}`);
      }
      cloned[name] = withAlias(copyJson(service) as JsonObject, key);
    }
  }
  for (const [key, service] of Object.entries(cloned)) {
    if (isMapping(service)) rewriteReferences(service, key, ordinals, serverName, warnings);
  }
  return cloned;
}

/** The clone joins each of its networks (or the default one) with the original key as an alias. */
function withAlias(service: JsonObject, alias: string): JsonObject {
  if (service.network_mode !== undefined && service.network_mode !== null) return service;
  const networks: JsonObject = {};
  if (Array.isArray(service.networks)) for (const name of service.networks) networks[String(name)] = null;
  else if (isMapping(service.networks)) Object.assign(networks, service.networks);
  else networks.default = null;
  for (const [name, settings] of Object.entries(networks)) {
    const config = isMapping(settings) ? settings : {};
    const aliases = Array.isArray(config.aliases) ? config.aliases : [];
    networks[name] = { ...config, aliases: aliases.includes(alias) ? aliases : [...aliases, alias] };
  }
  service.networks = networks;
  return service;
}

function rewriteReferences(service: JsonObject, key: string, ordinals: ReadonlyMap<string, readonly number[]>, serverName: string, warnings: string[]): void {
  const path = `services.${key}`;
  /** The Compose services `name` runs as on this server; empty when none of its containers is here. */
  const namesOf = (name: string): string[] => (ordinals.get(name) ?? []).map((ordinal, _, here) => composeServiceOf(name, ordinal, here));
  const first = (name: string) => namesOf(name)[0] ?? name;
  const absent = (attribute: string, name: string) =>
    warnings.push(`${path}.${attribute} ${name} is dropped on server ${serverName}: no container of ${name} runs there`);

  if (service.depends_on !== undefined && service.depends_on !== null) {
    const dependsOn: JsonObject = {};
    const entries: [string, JsonValue][] = Array.isArray(service.depends_on)
      ? service.depends_on.map((name) => [String(name), { condition: 'service_started' }])
      : Object.entries(isMapping(service.depends_on) ? service.depends_on : {});
    for (const [name, condition] of entries) {
      const targets = namesOf(name);
      if (targets.length === 0) absent('depends_on', name);
      for (const target of targets) dependsOn[target] = copyJson(condition);
    }
    if (Object.keys(dependsOn).length > 0) service.depends_on = dependsOn;
    else delete service.depends_on;
  }
  if (Array.isArray(service.links)) {
    service.links = service.links.flatMap((link) => {
      const [name = '', alias] = String(link).split(':');
      const targets = namesOf(name);
      if (targets.length === 0) absent('links', name);
      return targets.map((target) => (alias === undefined ? target : `${target}:${alias}`));
    });
    if (service.links.length === 0) delete service.links;
  }
  for (const attribute of ['network_mode', 'ipc', 'pid']) {
    const value = service[attribute];
    if (typeof value === 'string' && value.startsWith('service:')) service[attribute] = `service:${first(value.slice(8))}`;
  }
  if (Array.isArray(service.volumes_from)) {
    service.volumes_from = service.volumes_from.map((entry) => {
      const text = String(entry);
      if (text.startsWith('container:')) return text;
      const [name = '', ...mode] = text.split(':');
      return [first(name), ...mode].join(':');
    });
  }
}
