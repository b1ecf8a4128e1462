/**
 * `extends` within one document, resolved per layer before the layers merge, as compose-go does
 * per file (loader/extends.go): a service that extends another of the same document becomes the
 * other's definition (itself resolved first) merged with its own, by the same rules as layers
 * merge, and loses its `extends`. So an overlay that changes a parent service does not reach the
 * services extending it in the base: those were resolved before the overlay came.
 *
 * `!reset` and `!override` in the extending service apply to what it inherits (compose-go applies
 * the file's reset paths to the inherited copy) and are kept, so they still apply to the layers
 * below when this layer merges onto them. `extends.file` (host access only) is left to Compose,
 * which reads that file on the server, unless the caller reads files (`fromFile`: `panel compose
 * config`, extends-file.ts). Browser-safe (merge.ts depends on it).
 */
import { composeInvalid } from './limits.ts';
import { mergeTagOf, taggedValue, tagMarker, withoutMergeTags } from './tags.ts';
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

/** Merges a service definition onto the one it extends (merge.ts's rules, at `services.<name>`). */
export type ServiceMerger = (parent: JsonObject, service: JsonObject, name: string) => JsonObject;

/**
 * The service `extends.file` names, resolved (its own `extends` applied) and without merge tags;
 * `path` is the extending service's `extends` path, for errors.
 */
export type ExtendsFileLoader = (file: string, service: string, path: string) => JsonObject;

/**
 * The layer with every same-document `extends` resolved, and with `fromFile` every
 * `extends.file` too; the input is not modified.
 */
export function resolveExtends(layer: JsonObject, merge: ServiceMerger, fromFile?: ExtendsFileLoader): JsonObject {
  const services = taggedValue(layer.services ?? null);
  if (!isMapping(services) || !Object.values(services).some((service) => isMapping(taggedValue(service)) && hasExtends(taggedValue(service) as JsonObject))) {
    return layer;
  }
  const resolved = new Map<string, JsonValue>();

  const resolve = (name: string, chain: string[]): JsonValue => {
    const done = resolved.get(name);
    if (done !== undefined) return done;
    const raw = services[name]!;
    const service = taggedValue(raw);
    if (mergeTagOf(raw) === 'reset' || !isMapping(service) || !hasExtends(service)) return raw;
    const { file, target } = extendedService(service, name);
    if (file !== null && fromFile === undefined) return raw;
    const path = `services.${name}.extends`;
    let parent: JsonObject;
    if (file !== null) parent = fromFile!(file, target, path);
    else {
      if (!Object.hasOwn(services, target) || mergeTagOf(services[target]) === 'reset') {
        throw composeInvalid(`${path}: service "${target}" is not in the same document`, path);
      }
      if ([...chain, name].includes(target)) throw composeInvalid(`${path}: circular reference ${[...chain, name, target].join(' -> ')}`, path);
      parent = withoutMergeTags(taggedValue(resolve(target, [...chain, name]))) as JsonObject;
    }
    const { extends: _extends, ...own } = service;
    const merged = keepTags(merge(parent, own, name), own) as JsonObject;
    const result = mergeTagOf(raw) === 'override' ? tagMarker('override', merged) : merged;
    resolved.set(name, result);
    return result;
  };

  const resolvedServices: JsonObject = {};
  for (const name of Object.keys(services)) resolvedServices[name] = resolve(name, []);
  const wrapped = mergeTagOf(layer.services) === 'override' ? tagMarker('override', resolvedServices) : resolvedServices;
  return { ...layer, services: wrapped };
}

const hasExtends = (service: JsonObject) => service.extends !== undefined && service.extends !== null && mergeTagOf(service.extends) !== 'reset';

/** The service an `extends` names, and the file it is in (null: the same document). */
function extendedService(service: JsonObject, name: string): { file: string | null; target: string } {
  const extended = taggedValue(service.extends!);
  if (typeof extended === 'string') return { file: null, target: extended };
  if (isMapping(extended)) {
    const file = taggedValue(extended.file ?? null);
    const target = taggedValue(extended.service ?? null);
    if (file !== null && typeof file !== 'string') throw composeInvalid(`services.${name}.extends.file must be a path`, `services.${name}.extends.file`);
    if (typeof target === 'string') return { file, target };
  }
  throw composeInvalid(`services.${name}.extends.service must name a service`, `services.${name}.extends.service`);
}

/** The merged service with the service's own merge tags put back where it wrote them (mappings only). */
function keepTags(merged: JsonValue, own: JsonValue): JsonValue {
  if (!isMapping(merged) || !isMapping(own)) return merged;
  const result: JsonObject = { ...merged };
  for (const [key, value] of Object.entries(own)) {
    if (mergeTagOf(value) !== null) result[key] = value;
    else if (isMapping(value) && Object.hasOwn(result, key)) result[key] = keepTags(result[key]!, value);
  }
  return result;
}
