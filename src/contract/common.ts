/**
 * Building blocks every resource's contract uses: ids, paging and list envelopes, strict bodies,
 * free-form JSON, names and descriptions. valibot only, so the console and the daemon can
 * import it as the server does.
 */
import * as v from 'valibot';

export const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));
export const IdParams = v.object({ id: Uuid });

/** `?limit=` (default 50, at most 200) and `?cursor=` (the previous page's nextCursor). */
export const ListQuery = {
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'must be a number from 1 to 200'), v.transform(Number), v.minValue(1), v.maxValue(200))),
  cursor: v.optional(Uuid),
};

/** Every list answers `{data, nextCursor}`; nextCursor is null on the last page. */
export const listEnvelope = <T extends v.GenericSchema>(item: T) => v.object({ data: v.array(item), nextCursor: v.nullable(v.string()) });
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** A 204 answer: no body. */
export const NoContent = v.undefined();

/**
 * A request body that refuses unknown fields (422 naming the field) rather than dropping them,
 * and says which required field is missing. `noun` names what the keys are ("field", "option").
 */
export const strict = <const TEntries extends v.ObjectEntries>(entries: TEntries, noun = 'field') =>
  refuseArrays(
    v.strictObject(entries, (issue) => {
      if (issue.expected === 'never') return `unknown ${noun}`;
      if (issue.received === 'undefined') return 'is required';
      return 'must be a JSON object';
    }),
  );

const NOT_AN_OBJECT = v.never('must be a JSON object');

/**
 * valibot's object and record schemas take an array for an object (`[]` parses as `{}`). This
 * makes `schema` refuse arrays while the API description still shows the object schema it is.
 * It changes `schema` itself: pass a freshly built one.
 */
export function refuseArrays<T extends v.GenericSchema>(schema: T): T {
  const run = schema['~run'].bind(schema);
  const guarded = (dataset: v.UnknownDataset, config: v.Config<v.BaseIssue<unknown>>) =>
    Array.isArray(dataset.value) ? NOT_AN_OBJECT['~run'](dataset, config) : run(dataset, config);
  (schema as { '~run': unknown })['~run'] = guarded;
  return schema;
}

/** A free-form JSON object (client `metadata` and free-form option values). */
export const JsonObject = refuseArrays(v.record(v.string(), v.unknown()));
export type JsonObject = Record<string, unknown>;

/** A stored JSON column as answered: an object or null. */
export const JsonColumn = v.nullable(v.record(v.string(), v.unknown()));

export const MAX_DESCRIPTION_LENGTH = 10_000;
/** Free-text descriptions, capped so one row cannot hold megabytes. */
export const Description = v.pipe(v.string(), v.maxLength(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`));

/** 1..max characters of free text (names without a character rule). */
export const Text = (max: number) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

/** ^[A-Za-z0-9 ._-]+$, 1-255 characters (workspace and service names). */
export const ResourceName = v.pipe(Text(255), v.regex(/^[A-Za-z0-9 ._-]+$/, 'may contain only letters, digits, spaces and . _ -'));

/** ^[A-Za-z0-9 ._/-]+$, 1-255 characters (environment names and the organization's default one). */
export const EnvironmentName = v.pipe(Text(255), v.regex(/^[A-Za-z0-9 ._/-]+$/, 'may contain only letters, digits, spaces and . _ / -'));

/** ^[A-Za-z_][A-Za-z0-9_]*$, 1..max characters: variable keys, key prefixes, database names. */
export const EnvironmentKey = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must start with a letter or _ and contain only letters, digits and _'),
  );

/** ISO-8601 timestamps with milliseconds, as every resource answers them. */
export const Timestamp = v.string();
export const Timestamps = { createdAt: Timestamp, updatedAt: Timestamp };
