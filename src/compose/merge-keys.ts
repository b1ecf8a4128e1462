/**
 * Uniqueness of sequence items after a merge, as compose-go's override/uncity.go applies it:
 * for the attributes listed in UNIQUE_BY, an item whose key repeats an earlier item's key
 * replaces that earlier item in place (the later layer wins, the first position is kept).
 *
 * compose-go computes port and mount keys after converting short syntax to long syntax; we
 * compute the same key from either syntax so the model can keep the form the author wrote.
 * Browser-safe.
 */
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

type Indexer = (item: JsonValue) => string;

/** `KEY=VALUE` and `KEY` are keyed by KEY (environment, labels, capabilities, dns...). */
function keyValueKey(item: JsonValue): string {
  const text = String(item);
  const equals = text.indexOf('=');
  return equals === -1 ? text : text.slice(0, equals);
}

/**
 * A port is unique by host IP (default 0.0.0.0), published port, target port and protocol.
 * As in compose-go, long syntax keeps its YAML types in the key: `published: 8080` (a number)
 * differs from "8080:80" (published as a string) and `target: "80"` (a string) from target 80.
 */
function portKey(item: JsonValue): string {
  if (isMapping(item)) {
    return formatPortKey(item.host_ip, item.published, item.target, item.protocol);
  }
  const spec = String(item);
  const slash = spec.lastIndexOf('/');
  const protocol = slash === -1 ? undefined : spec.slice(slash + 1);
  const address = slash === -1 ? spec : spec.slice(0, slash);
  // "[::1]:8080:80" keeps its IPv6 host in brackets; otherwise the last two fields are ports.
  const bracketed = /^\[([^\]]*)\]:(.*)$/.exec(address);
  const fields = (bracketed ? bracketed[2]! : address).split(':');
  const target = fields.pop() ?? '';
  const published = fields.pop();
  const hostIp = bracketed ? bracketed[1] : fields.join(':');
  // Short syntax reads the target as a number and keeps the published port a string.
  return formatPortKey(hostIp, published, /^\d+$/.test(target) ? Number(target) : target, protocol);
}

const isAbsent = (value: unknown): boolean => value === undefined || value === null || value === '';

function formatPortKey(hostIp: unknown, published: unknown, target: unknown, protocol: unknown): string {
  const host = isAbsent(hostIp) ? '0.0.0.0' : String(hostIp);
  const publishedPort = isAbsent(published) ? '' : typeof published === 'number' ? `#${published}` : String(published);
  const targetPort = typeof target === 'number' ? String(target) : `'${String(target)}'`;
  const proto = isAbsent(protocol) ? 'tcp' : String(protocol);
  return `${host}:${publishedPort}:${targetPort}/${proto}`;
}

/** A volume is unique by its container path: `src:/target[:mode]`, `/target`, or `target:`. */
function volumeKey(item: JsonValue): string {
  if (isMapping(item)) return String(item.target);
  const fields = String(item).split(':');
  return fields.length === 1 ? fields[0]! : fields[1]!;
}

/** A device is unique by its container path: `/dev/host:/dev/container[:rwm]` or `/dev/same`. */
function deviceKey(item: JsonValue): string {
  if (isMapping(item)) return String(item.target);
  const fields = String(item).split(':');
  return fields.length === 1 ? fields[0]! : fields[1]!;
}

/** Secrets mount at /run/secrets/<name> and configs at /<name> unless a target is given. */
function mountKey(defaultDirectory: string): Indexer {
  return (item) => {
    if (!isMapping(item)) return `${defaultDirectory}/${String(item)}`;
    return item.target !== undefined ? String(item.target) : `${defaultDirectory}/${String(item.source)}`;
  };
}

function envFileKey(item: JsonValue): string {
  return isMapping(item) ? String(item.path) : String(item);
}

const UNIQUE_BY: [pattern: string, indexer: Indexer][] = [
  ...[
    'services.*.annotations',
    'services.*.build.additional_contexts',
    'services.*.build.args',
    'services.*.build.labels',
    'services.*.build.tags',
    'services.*.cap_add',
    'services.*.cap_drop',
    'services.*.deploy.labels',
    'services.*.dns',
    'services.*.dns_opt',
    'services.*.dns_search',
    'services.*.environment',
    'services.*.labels',
    'services.*.links',
    'services.*.networks.*.aliases',
    'services.*.networks.*.link_local_ips',
    'services.*.profiles',
    'services.*.sysctls',
    'services.*.tmpfs',
    'networks.*.labels',
    'networks.*.ipam.options',
  ].map((pattern): [string, Indexer] => [pattern, keyValueKey]),
  ['services.*.configs', mountKey('')],
  ['services.*.devices', deviceKey],
  ['services.*.env_file', envFileKey],
  ['services.*.expose', (item) => String(item)],
  ['services.*.ports', portKey],
  ['services.*.secrets', mountKey('/run/secrets')],
  ['services.*.volumes', volumeKey],
];

export function matchesPattern(path: readonly string[], pattern: readonly string[]): boolean {
  return path.length === pattern.length && pattern.every((segment, i) => segment === '*' || segment === path[i]);
}

const UNIQUE_RULES = UNIQUE_BY.map(([pattern, indexer]) => ({ pattern: pattern.split('.'), indexer }));

function dedupe(items: JsonValue[], indexer: Indexer): JsonValue[] {
  const result: JsonValue[] = [];
  const positions = new Map<string, number>();
  for (const item of items) {
    const key = indexer(item);
    const position = positions.get(key);
    if (position === undefined) {
      positions.set(key, result.length);
      result.push(item);
    } else {
      result[position] = item;
    }
  }
  return result;
}

/**
 * The rules whose pattern matches a path so far, as a tree over the path's segments: `literal`
 * for the segments the patterns name at this depth, `other` for any other key (`*`); built once.
 */
interface RuleNode {
  /** The first rule (in UNIQUE_BY order) whose pattern ends here. */
  indexer: Indexer | undefined;
  literal: Map<string, RuleNode>;
  other: RuleNode | undefined;
}

function ruleNode(rules: typeof UNIQUE_RULES, depth: number): RuleNode | undefined {
  if (rules.length === 0) return undefined;
  const deeper = rules.filter(({ pattern }) => pattern.length > depth);
  const literal = new Map<string, RuleNode>();
  for (const { pattern } of deeper) {
    const segment = pattern[depth]!;
    if (segment === '*' || literal.has(segment)) continue;
    literal.set(segment, ruleNode(deeper.filter(({ pattern: other }) => other[depth] === '*' || other[depth] === segment), depth + 1)!);
  }
  return {
    indexer: rules.find(({ pattern }) => pattern.length === depth)?.indexer,
    literal,
    other: ruleNode(deeper.filter(({ pattern }) => pattern[depth] === '*'), depth + 1),
  };
}

const RULE_TREE = ruleNode(UNIQUE_RULES, 0);

/** Applies the uniqueness rules everywhere in a model; returns a new model (mappings are copied). */
export function enforceUniqueness(model: JsonObject): JsonObject {
  return walk(model, RULE_TREE) as JsonObject;
}

function walk(value: JsonValue, rules: RuleNode | undefined): JsonValue {
  if (Array.isArray(value)) return rules?.indexer === undefined ? value : dedupe(value, rules.indexer);
  if (!isMapping(value)) return value;
  const result: JsonObject = {};
  for (const key of Object.keys(value)) result[key] = walk(value[key]!, rules === undefined ? undefined : (rules.literal.get(key) ?? rules.other));
  return result;
}
