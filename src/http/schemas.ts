import * as v from 'valibot';
import { ERROR_CATALOG, type ErrorCode } from '../contract/errors.ts';

/** Schemas shared by every surface: error answers, list envelopes, ids and paging. */

export const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));
export const IdParams = v.object({ id: Uuid });

export const ListQuery = {
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'must be a number from 1 to 200'), v.transform(Number), v.minValue(1), v.maxValue(200))),
  cursor: v.optional(Uuid),
};

export const listEnvelope = <T extends v.GenericSchema>(item: T) =>
  v.object({ data: v.array(item), nextCursor: v.nullable(v.string()) });

/** The error body of one status, its `code` limited to `codes`, each explained from the catalog. */
function errorBodyOf(codes: readonly ErrorCode[]) {
  return v.pipe(
    v.object({
      error: v.object({ code: v.picklist(codes), message: v.string(), path: v.optional(v.string()), requestId: v.string() }),
    }),
    v.description(codes.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].when}`).join('; ')),
  );
}

/**
 * Response map entries for the error codes a route can answer, grouped by the status the catalog
 * gives each, so the API description lists every code per operation.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, ReturnType<typeof errorBodyOf>> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].map(([status, grouped]) => [status, errorBodyOf(grouped)]));
}

/** ^[A-Za-z_][A-Za-z0-9_]*$, 1..max characters: variable keys, key prefixes, database names. */
export const EnvironmentKey = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must start with a letter or _ and contain only letters, digits and _'),
  );

/** A 204 answer: no body. */
export const NoContent = v.undefined();

const NOT_AN_OBJECT = v.never('must be a JSON object');

/**
 * valibot's object and record schemas take an array for an object (`[]` parses as `{}`). This
 * makes `schema` refuse arrays while OpenAPI still documents it as the object schema it is.
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

/** A stored JSON column as answered: an object or null. */
export const JsonColumn = v.nullable(v.record(v.string(), v.unknown()));

export const MAX_DESCRIPTION_LENGTH = 10_000;
/** Free-text descriptions, capped so one row cannot hold megabytes. */
export const Description = v.pipe(v.string(), v.maxLength(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`));
