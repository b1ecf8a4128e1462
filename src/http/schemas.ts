import * as v from 'valibot';
import { ERROR_CATALOG, type ErrorCode } from '../contract/errors.ts';

/** The error body of one status, its `code` limited to `codes`, each explained from the catalog. */
function describeErrorBody(codes: readonly ErrorCode[]) {
  return v.pipe(
    v.object({
      error: v.object({ code: v.picklist(codes), message: v.string(), path: v.optional(v.string()), requestId: v.string() }),
    }),
    v.description(codes.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].when}`).join('; ')),
  );
}

// Routes share code sets (a resource's five operations, every route behind the client guard):
// one schema per set, not one per route, keeps start-up time and idle memory down
// (docs/PERFORMANCE.md). Valibot schemas are never mutated, so sharing them is safe.
const errorBodies = new Map<string, ReturnType<typeof describeErrorBody>>();

function errorBodyOf(codes: readonly ErrorCode[]) {
  const key = codes.join(' ');
  let body = errorBodies.get(key);
  if (!body) errorBodies.set(key, (body = describeErrorBody(codes)));
  return body;
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
