import { DomainError } from '../lib/errors.ts';
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

interface ValidationIssuePathItem {
  key?: unknown;
}

/** Elysia reports Standard Schema (valibot) issues with a valibot path: keys joined by dots. */
function validationPath(error: unknown): string | undefined {
  const issue = (error as { valueError?: { path?: ValidationIssuePathItem[] } }).valueError;
  const keys = issue?.path?.map((item) => item.key).filter((key) => typeof key === 'string' || typeof key === 'number');
  return keys && keys.length > 0 ? keys.join('.') : undefined;
}

function validationMessage(error: unknown): string {
  const issue = (error as { valueError?: { message?: string } }).valueError;
  return issue?.message ?? 'request does not match the schema';
}

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

  if (error instanceof DomainError) {
    return { status: error.status, body: body(error.code, error.message, error.path) };
  }
  if (frameworkCode === 'VALIDATION') {
    const path = validationPath(error);
    return { status: 422, body: body('validation_failed', validationMessage(error), path ?? '') };
  }
  const known = typeof frameworkCode === 'string' ? FRAMEWORK_ERRORS[frameworkCode] : undefined;
  if (known) return { status: known.status, body: body(known.code, known.message) };

  logger.error('unhandled error', { requestId, error: error instanceof Error ? error.stack ?? error.message : String(error) });
  return { status: 500, body: body('internal_error', 'internal error') };
}
