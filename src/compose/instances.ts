/**
 * Multi-instance services (`service.options.instances` N > 1) on one server.
 *
 * Compose refuses `container_name` together with `deploy.replicas` > 1, and every compiled
 * container needs its own name (the pre-allocated container row). So a service with N instances
 * is written as N Compose services `<key>-1` ... `<key>-N`, identical but for their names and
 * ordinal label. To keep the document working as authored:
 *
 * - each clone joins its networks with the alias `<key>`, so `http://<key>` still resolves (the
 *   engine's DNS answers with every clone);
 * - references to `<key>` from other services are rewritten: `depends_on` and `links` name every
 *   clone, `network_mode`/`ipc`/`pid: service:<key>` and `volumes_from` name the first clone
 *   (same-document `extends` are resolved before, by mergeCompose).
 *
 * Fixed published host ports cannot be shared by several clones on one server: warned, not refused
 * (the port may be meant for one instance while the author tries things out).
 */
import { isMapping, type JsonObject, type JsonValue } from './values.ts';
import { composeInvalid } from './limits.ts';

export const cloneKey = (key: string, ordinal: number) => `${key}-${ordinal}`;

/**
 * Replaces each service of `instances` (key → count > 1) by its clones, in place of the
 * original, and rewrites references to it. Returns the new services mapping.
 */
export function cloneInstances(services: JsonObject, instances: ReadonlyMap<string, number>, warnings: string[]): JsonObject {
  const cloned: JsonObject = {};
  for (const [key, service] of Object.entries(services)) {
    const count = instances.get(key) ?? 1;
    if (count <= 1 || !isMapping(service)) {
      cloned[key] = service;
      continue;
    }
    if (publishesFixedPort(service)) {
      warnings.push(`services.${key} publishes a fixed host port; its ${count} instances on one server will conflict`);
    }
    for (let ordinal = 1; ordinal <= count; ordinal++) {
      const name = cloneKey(key, ordinal);
      if (Object.hasOwn(services, name)) {
        throw composeInvalid(`services.${key} runs ${count} instances, named ${key}-1..${key}-${count}, but services.${name} exists`, `services.${name}`);
      }
      cloned[name] = withAlias(copyJson(service) as JsonObject, key);
    }
  }
  for (const [key, service] of Object.entries(cloned)) {
    if (isMapping(service)) rewriteReferences(service, instances);
  }
  return cloned;
}

/** A deep copy (structuredClone is several times slower on these plain trees). */
function copyJson(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(copyJson);
  if (!isMapping(value)) return value;
  const copy: JsonObject = {};
  for (const key in value) copy[key] = copyJson(value[key]!);
  return copy;
}

function publishesFixedPort(service: JsonObject): boolean {
  if (!Array.isArray(service.ports)) return false;
  return service.ports.some((port) => {
    if (isMapping(port)) return port.published !== undefined && port.published !== null && port.published !== '';
    // "8080:80", "127.0.0.1:8080:80", "[::1]:8080:80"; a bare "80" publishes a random port.
    return String(port).replace(/^\[[^\]]*\]/, '').includes(':');
  });
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

function rewriteReferences(service: JsonObject, instances: ReadonlyMap<string, number>): void {
  const clonesOf = (key: string): string[] | undefined => {
    const count = instances.get(key) ?? 1;
    return count > 1 ? Array.from({ length: count }, (_, i) => cloneKey(key, i + 1)) : undefined;
  };
  const first = (key: string) => (clonesOf(key) === undefined ? key : cloneKey(key, 1));

  if (service.depends_on !== undefined && service.depends_on !== null) {
    const dependsOn: JsonObject = {};
    const entries: [string, JsonValue][] = Array.isArray(service.depends_on)
      ? service.depends_on.map((name) => [String(name), { condition: 'service_started' }])
      : Object.entries(isMapping(service.depends_on) ? service.depends_on : {});
    for (const [name, condition] of entries) {
      for (const target of clonesOf(name) ?? [name]) dependsOn[target] = copyJson(condition);
    }
    service.depends_on = dependsOn;
  }
  if (Array.isArray(service.links)) {
    service.links = service.links.flatMap((link) => {
      const [name = '', alias] = String(link).split(':');
      return (clonesOf(name) ?? [name]).map((target) => (alias === undefined ? target : `${target}:${alias}`));
    });
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
