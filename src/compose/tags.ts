/**
 * JSON representation of the Compose YAML merge tags `!reset` and `!override`.
 *
 *   YAML                        `data` (JSON)
 *   ports: !reset []            "ports": {"$reset": []}
 *   image: !override httpd      "image": {"$override": "httpd"}
 *
 * A tag becomes a mapping with exactly one key, `$reset` or `$override`, holding the tagged value
 * (for `!reset` the value is ignored by the merge but kept so the YAML is written back as it was
 * authored). Compose keys never start with `$`, so the wrapper cannot be mistaken for a real
 * attribute; the one thing that cannot be expressed is a free-form mapping (labels, x-*) whose
 * only key is literally `$reset` or `$override`. JSON written through the API uses the same form.
 *
 * Browser-safe (merge.ts depends on it).
 */
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

export const RESET_KEY = '$reset';
export const OVERRIDE_KEY = '$override';

export type MergeTag = 'reset' | 'override';

export const YAML_TAG_OF: Record<MergeTag, string> = { reset: '!reset', override: '!override' };
const KEY_OF: Record<MergeTag, string> = { reset: RESET_KEY, override: OVERRIDE_KEY };

export function tagMarker(tag: MergeTag, value: JsonValue): JsonObject {
  return { [KEY_OF[tag]]: value };
}

/** Which merge tag a value carries, or null for an ordinary value. */
export function mergeTagOf(value: unknown): MergeTag | null {
  if (!isMapping(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 1) return null;
  if (keys[0] === RESET_KEY) return 'reset';
  if (keys[0] === OVERRIDE_KEY) return 'override';
  return null;
}

/** The value inside a tag marker (the value itself when it carries no tag). */
export function taggedValue(value: JsonValue): JsonValue {
  const tag = mergeTagOf(value);
  return tag === null ? value : ((value as JsonObject)[KEY_OF[tag]] ?? null);
}

/**
 * The value a layer contributes when nothing lies beneath it: `!reset` keys disappear and
 * `!override` is unwrapped, at every depth. Inside sequences both tags are unwrapped, as
 * compose-go ignores them on sequence items.
 */
export function withoutMergeTags(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item) => withoutMergeTags(taggedValue(item)));
  if (!isMapping(value)) return value;
  const tag = mergeTagOf(value);
  if (tag !== null) return withoutMergeTags(taggedValue(value));
  const result: JsonObject = {};
  for (const key of Object.keys(value)) {
    const item = value[key]!;
    if (mergeTagOf(item) === 'reset') continue;
    result[key] = withoutMergeTags(item);
  }
  return result;
}
