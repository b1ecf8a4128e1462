import { DomainError } from '../lib/errors.ts';
import { validationFailure } from './plugins/body-check.ts';
import type { Logger } from '../lib/logger.ts';

export interface ErrorBody {
  error: { code: string; message: string; path?: string; requestId: string };
}

/** Elysia's own error codes, mapped once to the API's stable codes. */
const FRAMEWORK_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  NOT_FOUND: { status: 404, code: 'not_found', message: 'no such route' },
  PARSE: { status: 400, code: 'invalid_json', message: 'request body is not valid JSON' },
  INVALID_COOKIE_SIGNATURE: { status: 401, code: 'unauthenticated', message: 'invalid session cookie' },
};


/**
 * The one place any thrown error becomes an HTTP answer. Unknown errors are logged with the
 * request id and answered without detail (no stack or message leaks to the client).
 */
export function toErrorResponse(
  error: unknown,
  frameworkCode: string | number | undefined,
  requestId: string,
  logger: Logger,
): { status: number; body: ErrorBody } {
  const body = (code: string, message: string, path?: string): ErrorBody => ({
    error: path === undefined ? { code, message, requestId } : { code, message, path, requestId },
  });

  // Errors thrown while parsing the body reach here wrapped in Elysia's ParseError.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (frameworkCode === 'PARSE' && cause instanceof DomainError) error = cause;

  // Elysia reports the first Standard Schema (valibot) issue as `valueError`.
  if (frameworkCode === 'VALIDATION' && !(error instanceof DomainError)) error = validationFailure((error as { valueError?: Parameters<typeof validationFailure>[0] }).valueError);
  if (error instanceof DomainError) {
    return { status: error.status, body: body(error.code, error.message, error.path) };
  }
  const known = typeof frameworkCode === 'string' ? FRAMEWORK_ERRORS[frameworkCode] : undefined;
  if (known) return { status: known.status, body: body(known.code, known.message) };

  logger.error('unhandled error', { requestId, error: error instanceof Error ? error.stack ?? error.message : String(error) });
  return { status: 500, body: body('internal_error', 'internal error') };
}
