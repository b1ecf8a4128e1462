/**
 * Small type checks for validating Compose JSON. Each throws compose_invalid naming the path of
 * the offending value. Values may carry merge tags (an overlay's `!override`); `plain` unwraps
 * them and `isReset` tells a `!reset` (nothing to validate) apart.
 */
import { composeInvalid } from './limits.ts';
import { mergeTagOf, taggedValue } from './tags.ts';
import { isMapping, type JsonObject, type JsonValue, joinPath } from './values.ts';

export function isReset(value: unknown): boolean {
  return mergeTagOf(value) === 'reset';
}

/** The value with an `!override` (or `!reset`) wrapper removed. */
export function plain(value: unknown): JsonValue {
  return taggedValue(value as JsonValue);
}

/** Entries of a mapping that hold a real value (skipping `!reset` ones), unwrapped. */
export function entriesOf(mapping: JsonObject): [string, JsonValue][] {
  return Object.entries(mapping)
    .filter(([, value]) => !isReset(value))
    .map(([key, value]) => [key, plain(value)]);
}

/** Items of a sequence, unwrapped, with their index. */
export function itemsOf(value: JsonValue[]): [number, JsonValue][] {
  return value.map((item, i) => [i, plain(item)]);
}

export function expectMapping(value: JsonValue, path: string): JsonObject {
  if (!isMapping(value)) throw composeInvalid(`${path} must be a mapping`, path);
  return value;
}

export function expectSequence(value: JsonValue, path: string): JsonValue[] {
  if (!Array.isArray(value)) throw composeInvalid(`${path} must be a sequence`, path);
  return value;
}

export function expectString(
  value: JsonValue,
  path: string,
  rule?: { pattern?: RegExp; max?: number; what?: string },
): string {
  if (typeof value !== 'string' || value === '') throw composeInvalid(`${path} must be a non-empty string`, path);
  if (rule?.max !== undefined && value.length > rule.max) {
    throw composeInvalid(`${path} must be at most ${rule.max} characters`, path);
  }
  if (rule?.pattern && !rule.pattern.test(value)) {
    throw composeInvalid(`${path} must be ${rule.what ?? `a string matching ${rule.pattern}`}`, path);
  }
  return value;
}

export function expectInteger(value: JsonValue, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw composeInvalid(`${path} must be an integer from ${min} to ${max}`, path);
  }
  return value;
}

export function expectOneOf<T extends string>(value: JsonValue, path: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw composeInvalid(`${path} must be one of ${allowed.join(', ')}`, path);
  }
  return value as T;
}

/** Refuses keys outside `allowed`; `refusedHint` gives a better message for specific keys. */
export function expectKnownKeys(
  mapping: JsonObject,
  path: string,
  allowed: readonly string[],
  refusedHint: Record<string, string> = {},
): void {
  for (const key of Object.keys(mapping)) {
    if (allowed.includes(key)) continue;
    const keyPath = joinPath(path, key);
    throw composeInvalid(refusedHint[key] ?? `${keyPath} is not a known key; allowed: ${allowed.join(', ')}`, keyPath);
  }
}
