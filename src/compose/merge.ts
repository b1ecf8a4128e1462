/**
 * Merge of Compose layers (project base, then environment overlays) following the Compose
 * specification's merge rules as compose-go implements them (override/merge.go, uncity.go).
 * Each layer's own `extends` are resolved first, as compose-go does per file (extends.ts).
 *
 * - mappings merge key by key, the later layer winning; `x-*` extensions merge the same way;
 * - sequences append, then UNIQUE_BY (merge-keys.ts) removes redefinitions;
 * - `command`, `entrypoint`, `healthcheck.test` and each `ulimits.<name>` are replaced whole;
 * - environment, labels, annotations, sysctls, build.args/labels/additional_contexts and
 *   deploy/network/volume labels merge by key whether written as `KEY=VALUE` lists or
 *   mappings; the result is a mapping (`KEY` alone becomes `KEY: null`);
 * - dns, dns_opt, dns_search, env_file, label_file and tmpfs accept a single string;
 * - extra_hosts append, dropping entries equal to one already present (several addresses
 *   per host are legal, so they are not merged by host name);
 * - depends_on and a service's networks/models written as lists become mappings first
 *   (depends_on entries default to `condition: service_started, required: true`);
 * - build given as a string is `{context: <string>}`; logging options merge only when both
 *   layers name the same driver (or one names none), otherwise the later logging wins;
 * - networks.*.ipam.config merges entries by subnet (with compose-go's exact algorithm);
 * - a null in a later layer leaves the earlier value, except where the value is replaced whole;
 * - `!reset` (`{"$reset": ...}`) removes the key, `!override` (`{"$override": v}`) replaces the
 *   earlier value with v whole, at any depth (scalars, mappings, sequences, services, resources).
 *
 * Browser-safe: the console imports it for its read-only merged preview.
 */
import { type ExtendsFileLoader, resolveExtends, type ServiceMerger } from './extends.ts';
import { composeInvalid } from './limits.ts';
import { enforceUniqueness, matchesPattern } from './merge-keys.ts';
import { mergeTagOf, taggedValue, withoutMergeTags } from './tags.ts';
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

type Merger = (base: JsonValue, overlay: JsonValue, path: string[]) => JsonValue;

const replaceWhole: Merger = (_base, overlay) => withoutMergeTags(overlay);

const KEY_VALUE_FAMILIES = [
  'services.*.environment',
  'services.*.labels',
  'services.*.annotations',
  'services.*.sysctls',
  'services.*.build.args',
  'services.*.build.labels',
  'services.*.build.additional_contexts',
  'services.*.deploy.labels',
  'networks.*.labels',
  'volumes.*.labels',
];
const STRING_OR_LIST_FAMILIES = ['dns', 'dns_opt', 'dns_search', 'env_file', 'label_file', 'tmpfs'];

const MERGERS: [pattern: string, merger: Merger][] = [
  ['services.*.command', replaceWhole],
  ['services.*.entrypoint', replaceWhole],
  ['services.*.healthcheck.test', replaceWhole],
  ['services.*.ulimits.*', replaceWhole],
  ...KEY_VALUE_FAMILIES.map((pattern): [string, Merger] => [pattern, mergeKeyValues]),
  ...STRING_OR_LIST_FAMILIES.map((name): [string, Merger] => [`services.*.${name}`, appendSequences]),
  ['services.*.extra_hosts', mergeExtraHosts],
  ['services.*.build.extra_hosts', mergeExtraHosts],
  ['services.*.depends_on', mergeDependsOn],
  ['services.*.networks', mergeListedNames],
  ['services.*.models', mergeListedNames],
  ['services.*.build', mergeBuild],
  ['services.*.logging', mergeLogging],
  ['networks.*.ipam.config', mergeIpamConfig],
];
const MERGE_RULES = MERGERS.map(([pattern, merger]) => ({ pattern: pattern.split('.'), merger }));

/**
 * Merges Compose models in order: `base`, then each overlay on top. Inputs are JSON models as
 * stored in ComposeDocument.data (tags.ts markers allowed) and are not modified; missing
 * overlays (null/undefined) are skipped. The result carries no merge tags.
 */
export function mergeCompose(base: JsonValue, ...overlays: (JsonValue | undefined)[]): JsonObject {
  const baseLayer = base ?? {};
  if (!isMapping(baseLayer)) throw composeInvalid('the document root must be a mapping');
  let merged = enforceUniqueness(withoutMergeTags(resolveExtends(baseLayer, mergeService)) as JsonObject);
  for (const overlay of overlays) {
    if (overlay === null || overlay === undefined) continue;
    if (!isMapping(overlay)) throw composeInvalid('the document root must be a mapping');
    merged = enforceUniqueness(mergeMappings(merged, resolveExtends(overlay, mergeService), []));
  }
  return merged;
}

/** `extends`: a service merged onto the one it extends, by the same rules as layers. */
const mergeService: ServiceMerger = (parent, service, name) => mergeMappings(parent, service, ['services', name]);

/** One layer with its `extends` resolved, `extends.file` too with a loader (extends-file.ts). */
export const resolveLayerExtends = (layer: JsonObject, fromFile?: ExtendsFileLoader): JsonObject => resolveExtends(layer, mergeService, fromFile);

function mergeValue(base: JsonValue, overlay: JsonValue, path: string[]): JsonValue {
  const rule = MERGE_RULES.find(({ pattern }) => matchesPattern(path, pattern));
  if (rule !== undefined) return rule.merger(base, overlay, path);
  if (overlay === null) return base;
  if (isMapping(base)) {
    if (!isMapping(overlay)) throw cannotOverride(path);
    return mergeMappings(base, overlay, path);
  }
  if (Array.isArray(base)) {
    if (!Array.isArray(overlay)) throw cannotOverride(path);
    return [...base, ...(withoutMergeTags(overlay) as JsonValue[])];
  }
  return withoutMergeTags(overlay);
}

function cannotOverride(path: string[]) {
  return composeInvalid(`cannot merge ${path.join('.')}: the layers give it different types`, path.join('.'));
}

/** Base keys keep their position; keys new in the overlay are appended. */
function mergeMappings(base: JsonObject, overlay: JsonObject, path: string[]): JsonObject {
  const result: JsonObject = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const tag = mergeTagOf(value);
    if (tag === 'reset') delete result[key];
    else if (tag === 'override' || !Object.hasOwn(result, key)) result[key] = withoutMergeTags(taggedValue(value));
    else result[key] = mergeValue(result[key] as JsonValue, value, [...path, key]);
  }
  return result;
}

/** compose-go's convertIntoSequence: mapping entries become sorted `key=value` strings. */
function toSequence(value: JsonValue): JsonValue[] {
  if (Array.isArray(value)) return withoutMergeTags(value) as JsonValue[];
  if (typeof value === 'string') return [value];
  if (!isMapping(value)) return [];
  const entries: string[] = [];
  for (const [key, item] of Object.entries(withoutMergeTags(value) as JsonObject)) {
    if (item === null) entries.push(key);
    else for (const one of Array.isArray(item) ? item : [item]) entries.push(`${key}=${String(one)}`);
  }
  return entries.sort();
}

function appendSequences(base: JsonValue, overlay: JsonValue): JsonValue {
  return [...toSequence(base), ...toSequence(overlay)];
}

function mergeExtraHosts(base: JsonValue, overlay: JsonValue): JsonValue {
  const existing = toSequence(base);
  const added = toSequence(overlay).filter((entry) => !existing.includes(entry));
  return [...existing, ...added];
}

/** `KEY=VALUE` lists and mappings merged into one mapping; `!reset` on a key removes it. */
function mergeKeyValues(base: JsonValue, overlay: JsonValue): JsonValue {
  const result = keyValueMapping(base);
  if (isMapping(overlay)) {
    for (const [key, value] of Object.entries(overlay)) {
      if (mergeTagOf(value) === 'reset') delete result[key];
      else result[key] = withoutMergeTags(taggedValue(value));
    }
  } else {
    Object.assign(result, keyValueMapping(overlay));
  }
  return result;
}

/** A `KEY=VALUE` list or mapping as a new mapping (`KEY` alone becomes `KEY: null`). */
export function keyValueMapping(value: JsonValue): JsonObject {
  if (isMapping(value)) return withoutMergeTags(value) as JsonObject;
  const result: JsonObject = {};
  for (const entry of toSequence(value)) {
    const text = String(entry);
    const equals = text.indexOf('=');
    if (equals === -1) result[text] = null;
    else result[text.slice(0, equals)] = text.slice(equals + 1);
  }
  return result;
}

/** A list of names as a mapping: each name gets a copy of `defaults` (or null). */
function namesToMapping(value: JsonValue, defaults: JsonObject | null): JsonObject {
  if (isMapping(value)) return value;
  const result: JsonObject = {};
  for (const name of Array.isArray(value) ? value : []) {
    result[String(taggedValue(name))] = defaults === null ? null : { ...defaults };
  }
  return result;
}

function mergeDependsOn(base: JsonValue, overlay: JsonValue, path: string[]): JsonValue {
  const defaults = { condition: 'service_started', required: true };
  return mergeMappings(namesToMapping(base, defaults), namesToMapping(overlay, defaults), path);
}

function mergeListedNames(base: JsonValue, overlay: JsonValue, path: string[]): JsonValue {
  return mergeMappings(namesToMapping(base, null), namesToMapping(overlay, null), path);
}

function mergeBuild(base: JsonValue, overlay: JsonValue, path: string[]): JsonValue {
  const asMapping = (build: JsonValue): JsonObject =>
    typeof build === 'string' ? { context: build } : isMapping(build) ? build : {};
  return mergeMappings(asMapping(base), asMapping(overlay), path);
}

function mergeLogging(base: JsonValue, overlay: JsonValue, path: string[]): JsonValue {
  if (!isMapping(base) || !isMapping(overlay)) return overlay === null ? base : withoutMergeTags(overlay);
  const sameDriver =
    !Object.hasOwn(base, 'driver') || !Object.hasOwn(overlay, 'driver') || base.driver === taggedValue(overlay.driver!);
  return sameDriver ? mergeMappings(base, overlay, path) : withoutMergeTags(overlay);
}

/**
 * compose-go's mergeIPAMConfig, step for step (entries are mutated in place exactly as the Go
 * maps are): an overlay entry with the subnet of a base entry merges into it, other overlay
 * entries are added, and base entries no overlay entry matches are not kept.
 */
function mergeIpamConfig(base: JsonValue, overlay: JsonValue, path: string[]): JsonValue {
  if (!Array.isArray(base) || !Array.isArray(overlay)) throw cannotOverride(path);
  const result: JsonObject[] = [];
  const overlays = overlay.map((entry) => (isMapping(entry) ? (withoutMergeTags(entry) as JsonObject) : {}));
  for (const original of base) {
    const right = isMapping(original) ? original : {};
    for (const left of overlays) {
      if (left.subnet !== right.subnet && !result.some((entry) => entry.subnet === left.subnet)) {
        result.push(left);
        continue;
      }
      for (const [key, value] of Object.entries(left)) {
        right[key] = Object.hasOwn(right, key) ? mergeValue(right[key] as JsonValue, value, [...path, key]) : value;
      }
      const existing = result.findIndex((entry) => entry.subnet === right.subnet);
      if (existing >= 0) result[existing] = right;
      else result.push(right);
    }
  }
  return result;
}
