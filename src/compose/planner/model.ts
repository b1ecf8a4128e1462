/**
 * What the planner reads of a Compose document (spec, Compose documents 8): per service its
 * replica count or global mode, placement constraints and spread preferences, the cap per
 * server, the host ports it publishes, the services it must share a server with, and the
 * networks it joins. Pure; the same reader checks a stored document at save (validate.ts), so a
 * constraint Panel cannot honour is refused there with its path instead of being ignored at
 * deploy.
 *
 * - A service is *scheduled* when it names `deploy.replicas`, `deploy.mode: global` or any
 *   `deploy.placement.*`: the planner may put it on any connected server. Every other service
 *   runs on the anchor (`scale`, else the service's `options.instances`, instances there).
 * - Constraints: `node.id`, `node.hostname`, `node.labels.<key>` with `==` or `!=` (Swarm's
 *   syntax). Preferences: `spread: node.labels.<key>`. Swarm's other node attributes
 *   (`node.role`, `node.platform.*`, `engine.labels.*`) describe nothing Panel knows: refused.
 * - Colocation: `network_mode`, `pid`, `ipc: service:<name>` and `volumes_from: <name>` need
 *   the named service's container on the same engine.
 */
import { composeInvalid } from '../limits.ts';
import { isMapping, type JsonObject, type JsonValue } from '../values.ts';
import { LABEL_KEY } from '../../contract/servers.ts';
import { type HostPort, publishedPorts } from './ports.ts';

/** The most replicas one service may ask for (the same cap as a service's options.instances). */
export const MAX_REPLICAS = 100;

export type ConstraintOperator = '==' | '!=';

export type NodeAttribute = { kind: 'id' } | { kind: 'hostname' } | { kind: 'label'; key: string };

export interface Constraint {
  attribute: NodeAttribute;
  operator: ConstraintOperator;
  value: string;
  /** As written, for messages. */
  text: string;
  path: string;
}

export interface Colocation {
  target: string;
  /** The attribute naming the target, e.g. `services.backup.network_mode`. */
  path: string;
}

export interface ServicePlacementSpec {
  key: string;
  /** Named replicas, global mode or placement: may run on any connected server. */
  scheduled: boolean;
  mode: 'replicated' | 'global';
  /** Replicated: how many (scheduled: deploy.replicas, default 1; anchored: scale or instances). */
  replicas: number;
  constraints: Constraint[];
  /** Label keys of `spread: node.labels.<key>`, outermost first. */
  spread: string[];
  /** Null: no cap. */
  maxPerNode: number | null;
  ports: HostPort[];
  colocatedWith: Colocation[];
  /** Networks the service joins (`default` when it names none); none with network_mode. */
  networks: string[];
}

export interface PlacementModel {
  services: ServicePlacementSpec[];
  /** Top-level networks with `driver: overlay`. */
  overlayNetworks: Set<string>;
  warnings: string[];
}

const CONSTRAINT = /^\s*(node\.[A-Za-z0-9._-]+)\s*(==|!=)\s*(\S(?:.*\S)?)\s*$/;
const SUPPORTED_ATTRIBUTES = 'node.id, node.hostname or node.labels.<key>';

/** `node.labels.disk == ssd` → its parts; compose_invalid naming `path` otherwise. */
export function parseConstraint(text: string, path: string): Constraint {
  const match = CONSTRAINT.exec(text);
  if (!match) throw composeInvalid(`${path}: "${text}" is not a constraint; write <attribute> == <value> or <attribute> != <value> on ${SUPPORTED_ATTRIBUTES}`, path);
  const [, name, operator, value] = match as unknown as [string, string, ConstraintOperator, string];
  return { attribute: nodeAttribute(name, path), operator, value, text: text.trim(), path };
}

function nodeAttribute(name: string, path: string): NodeAttribute {
  if (name === 'node.id') return { kind: 'id' };
  if (name === 'node.hostname') return { kind: 'hostname' };
  if (name.startsWith('node.labels.')) {
    const key = name.slice('node.labels.'.length);
    if (LABEL_KEY.test(key)) return { kind: 'label', key };
    throw composeInvalid(`${path}: "${key}" is not a server label key (letters, digits, ".", "_", "-"; at most 63)`, path);
  }
  throw composeInvalid(`${path}: ${name} is not something Panel places on; use ${SUPPORTED_ATTRIBUTES}`, path);
}

/** A whole number from a number or a digit string; `what` for the message. */
function count(value: JsonValue, path: string, min: number, max: number): number {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    const hint = typeof value === 'string' && value.includes('$') ? ' (the planner reads it before Compose interpolates, so it cannot be a variable)' : '';
    throw composeInvalid(`${path} must be a whole number from ${min} to ${max}${hint}`, path);
  }
  return number;
}

/** The services a service must share an engine with, from its `service:` namespaces and volumes_from. */
function colocationsOf(service: JsonObject, path: string): Colocation[] {
  const found: Colocation[] = [];
  for (const attribute of ['network_mode', 'pid', 'ipc']) {
    const value = service[attribute];
    if (typeof value === 'string' && value.startsWith('service:')) found.push({ target: value.slice('service:'.length), path: `${path}.${attribute}` });
  }
  if (Array.isArray(service.volumes_from)) {
    for (const [i, entry] of service.volumes_from.entries()) {
      const text = String(entry);
      if (!text.startsWith('container:')) found.push({ target: text.split(':')[0]!, path: `${path}.volumes_from.${i}` });
    }
  }
  return found;
}

function networksOf(service: JsonObject): string[] {
  if (service.network_mode !== undefined && service.network_mode !== null) return [];
  if (Array.isArray(service.networks)) return service.networks.map(String);
  if (isMapping(service.networks)) return Object.keys(service.networks);
  return ['default'];
}

/** The placement section of one service; throws compose_invalid at the first thing it cannot honour. */
export function readServicePlacement(key: string, service: JsonObject, instances = 1): ServicePlacementSpec {
  const path = `services.${key}`;
  const deploy = isMapping(service.deploy) ? service.deploy : {};
  const placement = deploy.placement === undefined || deploy.placement === null ? null : deploy.placement;
  if (placement !== null && !isMapping(placement)) throw composeInvalid(`${path}.deploy.placement must be a mapping`, `${path}.deploy.placement`);

  const mode = deploy.mode === undefined || deploy.mode === null ? 'replicated' : deploy.mode;
  if (mode !== 'replicated' && mode !== 'global') {
    throw composeInvalid(`${path}.deploy.mode must be replicated or global (jobs are not scheduled by Panel)`, `${path}.deploy.mode`);
  }
  const named = deploy.replicas !== undefined && deploy.replicas !== null;
  const replicas = named ? count(deploy.replicas!, `${path}.deploy.replicas`, 0, MAX_REPLICAS) : 1;

  const constraints: Constraint[] = [];
  const spread: string[] = [];
  let maxPerNode: number | null = null;
  if (placement !== null) {
    for (const [name, value] of Object.entries(placement)) {
      const at = `${path}.deploy.placement.${name}`;
      if (value === null) continue;
      if (name === 'constraints') {
        if (!Array.isArray(value)) throw composeInvalid(`${at} must be a sequence`, at);
        value.forEach((item, i) => {
          if (typeof item !== 'string') throw composeInvalid(`${at}.${i} must be a string`, `${at}.${i}`);
          constraints.push(parseConstraint(item, `${at}.${i}`));
        });
      } else if (name === 'preferences') {
        if (!Array.isArray(value)) throw composeInvalid(`${at} must be a sequence`, at);
        value.forEach((item, i) => spread.push(spreadLabel(item, `${at}.${i}`)));
      } else if (name === 'max_replicas_per_node') {
        // Swarm's 0 means no cap.
        maxPerNode = count(value, at, 0, MAX_REPLICAS) || null;
      } else {
        throw composeInvalid(`${at} is not a placement key; use constraints, preferences or max_replicas_per_node`, at);
      }
    }
  }

  const scheduled = named || mode === 'global' || placement !== null;
  const scale = service.scale === undefined || service.scale === null ? null : count(service.scale, `${path}.scale`, 0, MAX_REPLICAS);
  return {
    key,
    scheduled,
    mode,
    replicas: scheduled ? replicas : (scale ?? instances),
    constraints,
    spread,
    maxPerNode,
    ports: publishedPorts(service.ports, `${path}.ports`),
    colocatedWith: colocationsOf(service, path),
    networks: networksOf(service),
  };
}

function spreadLabel(item: JsonValue, path: string): string {
  const target = isMapping(item) && Object.keys(item).length === 1 ? item.spread : undefined;
  const label = typeof target === 'string' && target.startsWith('node.labels.') ? target.slice('node.labels.'.length) : undefined;
  if (label === undefined || !LABEL_KEY.test(label)) {
    throw composeInvalid(`${path} must be spread: node.labels.<key> (the only placement preference there is)`, path);
  }
  return label;
}

/**
 * Every service of a merged document. `instances` are the service rows' options.instances by
 * Compose key (anchored services only; a scheduled one's count is its deploy.replicas).
 */
export function readPlacementModel(document: JsonObject, instances: ReadonlyMap<string, number> = new Map()): PlacementModel {
  const services = isMapping(document.services) ? document.services : {};
  const warnings: string[] = [];
  const specs = Object.entries(services).map(([key, service]) => {
    const spec = readServicePlacement(key, isMapping(service) ? service : {}, instances.get(key) ?? 1);
    const asked = instances.get(key);
    if (asked !== undefined && asked > 1 && (spec.scheduled || (isMapping(service) && service.scale !== undefined))) {
      warnings.push(`services.${key}: options.instances (${asked}) is not used; the document sets ${spec.scheduled ? 'deploy.replicas or placement' : 'scale'}`);
    }
    return spec;
  });
  const overlayNetworks = new Set<string>();
  if (isMapping(document.networks)) {
    for (const [name, network] of Object.entries(document.networks)) {
      if (isMapping(network) && network.driver === 'overlay') overlayNetworks.add(name);
    }
  }
  return { services: specs, overlayNetworks, warnings };
}
