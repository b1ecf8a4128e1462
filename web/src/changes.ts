/**
 * What an edit form sends: only the fields that differ from the stored resource (docs/DECISIONS.md,
 * "Console"). A field the user did not change is never written, so neither a value the form
 * cannot show (a secret, a password) nor one someone else changed since the form opened is
 * overwritten with the copy the form started from.
 */

type JsonObject = Record<string, unknown>;

/** JSON text with object keys in order, so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as JsonObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** Equal as JSON values; an absent value (undefined) equals only another absent one. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonical(a) === canonical(b);
}

/**
 * The entries of `next` whose value differs from the same key of `stored`. An entry that is
 * undefined in `next` is not sent at all (the form leaves that field alone).
 */
export function changedEntries<T extends JsonObject>(next: T, stored: { readonly [K in keyof T]?: unknown }): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(next) as (keyof T & string)[]) {
    const value = next[key];
    if (value !== undefined && !sameValue(value, stored[key])) changed[key] = value;
  }
  return changed;
}

export const isUnchanged = (changes: object): boolean => Object.keys(changes).length === 0;

/**
 * A JSON object the API replaces whole (hosting or principal options, a cluster's options), with
 * the form's keys applied: an undefined entry removes its key, every key the form does not show
 * keeps its stored value. Null when nothing is left.
 */
export function withEntries(stored: JsonObject | null | undefined, entries: JsonObject): JsonObject | null {
  const merged: JsonObject = { ...stored };
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  return Object.keys(merged).length === 0 ? null : merged;
}
