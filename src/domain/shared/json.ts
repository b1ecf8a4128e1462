import type { JsonObject } from '../../db/schema/index.ts';

/**
 * Removes platform-owned keys from client JSON (metadata/options) before it is stored, so a
 * client can never smuggle identity or placement facts in through a free-form field.
 */
export function stripKeys(value: JsonObject | null | undefined, keys: readonly string[]): JsonObject | null | undefined {
  if (value === null || value === undefined) return value;
  const copy: JsonObject = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}
