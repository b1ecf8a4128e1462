import type { ErrorBody } from '../contract/errors.ts';
import { DomainError } from '../lib/errors.ts';
import { validationFailure } from './plugins/body-check.ts';
import type { Logger } from '../lib/logger.ts';
import { isDiskFull } from '../db/errors.ts';
import type { DiskFullMonitor } from '../ops/disk-full.ts';

/** Elysia's own error codes, mapped once to the API's stable codes. */
const FRAMEWORK_ERRORS: Record<string, DomainError> = {
  NOT_FOUND: new DomainError('not_found', 'no such route'),
  PARSE: new DomainError('invalid_json', 'request body is not valid JSON'),
  INVALID_COOKIE_SIGNATURE: new DomainError('unauthenticated', 'invalid session cookie'),
};


export interface ErrorResponse {
  status: number;
  /** Retry-After (seconds) of a 429. */
  headers: Record<string, string>;
  body: ErrorBody;
}

/** The answer to a DomainError: the catalog's status, the one body, Retry-After when it has one. */
export function answerFor(error: DomainError, requestId: string): ErrorResponse {
  const { code, message, path } = error;
  return {
    status: error.status,
    headers: error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) },
    body: { error: path === undefined ? { code, message, requestId } : { code, message, path, requestId } },
  };
}

const DISK_FULL = new DomainError('insufficient_storage', "the disk holding Panel's data is full; nothing was written. Try again once space is freed");

/**
 * The one place any thrown error becomes an HTTP answer. Unknown errors are logged with the
 * request id and answered without detail (no stack or message leaks to the client). A write
 * refused for lack of disk space is a 507, logged by the monitor once per interval.
 */
export function toErrorResponse(error: unknown, frameworkCode: string | number | undefined, requestId: string, logger: Logger, diskFull?: DiskFullMonitor): ErrorResponse {
  // Errors thrown while parsing the body reach here wrapped in Elysia's ParseError.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (frameworkCode === 'PARSE' && cause instanceof DomainError) error = cause;

  // Elysia reports the first Standard Schema (valibot) issue as `valueError`.
  if (frameworkCode === 'VALIDATION' && !(error instanceof DomainError)) error = validationFailure((error as { valueError?: Parameters<typeof validationFailure>[0] }).valueError);
  if (isDiskFull(error)) error = DISK_FULL;
  if (error instanceof DomainError) {
    if (error.code === 'insufficient_storage') diskFull?.refused();
    return answerFor(error, requestId);
  }
  const known = typeof frameworkCode === 'string' ? FRAMEWORK_ERRORS[frameworkCode] : undefined;
  if (known) return answerFor(known, requestId);

  logger.error('unhandled error', { requestId, error: error instanceof Error ? error.stack ?? error.message : String(error) });
  return answerFor(new DomainError('internal_error', 'internal error'), requestId);
}
