/**
 * Plain-JSON helpers shared by the Compose modules. Browser-safe: merge.ts (imported by the
 * console) depends on this file.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

export function isMapping(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality; mapping key order is ignored, sequence order is not. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isMapping(a) && isMapping(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

/** Dot-separated path used in error messages: `services.web.ports.0`. */
export function joinPath(parent: string, key: string | number): string {
  return parent === '' ? String(key) : `${parent}.${key}`;
}

/** A deep copy of a plain JSON tree (structuredClone is several times slower on these). */
export function copyJson(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(copyJson);
  if (!isMapping(value)) return value;
  const copy: JsonObject = {};
  for (const key in value) copy[key] = copyJson(value[key]!);
  return copy;
}
