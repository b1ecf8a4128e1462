/**
 * Row -> API JSON. A resource's answer is its contract schema (src/contract): the presenter is
 * derived from that schema's keys, so the answer is not written a second time. A row value
 * under the same key is taken as it is (a Date becomes ISO-8601 with milliseconds); keys the
 * row holds under another name, or computes, are named in `derive`.
 */
import type * as v from 'valibot';
import type { GenericSchema } from 'valibot';

export const iso = (date: Date): string => date.toISOString();
export const isoOrNull = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

type Shape = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;
type Answer<S extends Shape> = v.InferOutput<S>;
/**
 * Keys the row holds under another name, or computes: `{ forBuild: (row: Variable) => row.isForBuild }`.
 * Annotate `row` with the row's type. The response test (test/harness.ts) checks every answer
 * of the test suite against the schema, so a key the row lacks cannot go unnoticed.
 */
export type Derivations<S extends Shape> = { [K in keyof Answer<S>]?: (row: never) => Answer<S>[K] };

export type Presenter<S extends Shape> = (row: object) => Answer<S>;

/** The presenter of `schema`. An `undefined` value leaves its key out. */
export function presenterOf<S extends Shape>(schema: S, derive: Derivations<S> = {}): Presenter<S> {
  const keys = Object.keys(schema.entries);
  const derivations = derive as Record<string, ((row: object) => unknown) | undefined>;
  return (row) => {
    const answer: Record<string, unknown> = {};
    for (const key of keys) {
      const derived = derivations[key];
      const value = derived ? derived(row) : (row as Record<string, unknown>)[key];
      if (value !== undefined) answer[key] = value instanceof Date ? value.toISOString() : value;
    }
    return answer as Answer<S>;
  };
}

/** Described-only twins and the schemas they stand for (answerSchemaOf). */
const describedOnly = new WeakMap<object, GenericSchema>();

/**
 * `schema` for a route's success answer: the API description shows it as it is, but Elysia does
 * not run it over each answer as it leaves. That check rebuilt every answer (valibot copies what
 * it validates), a tenth of a 50-service list page's time, and could find nothing: the answer
 * is built by presenterOf from this same schema, and the test suite checks every answer it gets
 * against the schema, refusing one the schema would change (test/api-description.ts).
 */
export function describedAnswer<S extends GenericSchema>(schema: S): S {
  const twin = Object.create(schema, { '~standard': { value: { version: 1, vendor: 'valibot', validate: (value: unknown) => ({ value }) } } }) as S;
  describedOnly.set(twin, schema);
  return twin;
}

/** The schema an answer must pass: the one a described-only twin stands for, else `schema` itself. */
export const answerSchemaOf = (schema: GenericSchema): GenericSchema => describedOnly.get(schema) ?? schema;
