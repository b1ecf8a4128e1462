import * as v from 'valibot';

/** Schemas shared by every surface: the error body, list envelopes, ids and paging. */
export const ErrorBodySchema = v.object({
  error: v.object({
    code: v.string(),
    message: v.string(),
    path: v.optional(v.string()),
    requestId: v.string(),
  }),
});

export const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));
export const IdParams = v.object({ id: Uuid });

export const ListQuery = {
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'must be a number from 1 to 200'), v.transform(Number), v.minValue(1), v.maxValue(200))),
  cursor: v.optional(Uuid),
};

export const listEnvelope = <T extends v.GenericSchema>(item: T) =>
  v.object({ data: v.array(item), nextCursor: v.nullable(v.string()) });

/** Response map entries for the error statuses a route can answer, so OpenAPI lists them. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBodySchema> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBodySchema]));
}
