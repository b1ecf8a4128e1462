import { type CodeWithStatus, type ErrorCode, type ErrorStatus, statusOf } from '../contract/errors.ts';

/**
 * The one error type business code throws: `throw new DomainError('name_in_use', message, 'name')`.
 * `code` is one of the closed catalog (src/contract/errors.ts), which alone decides the HTTP
 * status; `path` names the offending input field (dot-separated) when there is one. The mapper
 * (src/http/errors.ts) turns it into the error body, and `retryAfterSeconds` into Retry-After.
 */
export class DomainError extends Error {
  readonly status: ErrorStatus;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly path?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = statusOf(code);
  }

  /** The same error about another field, or with its message prefixed (nested documents). */
  relocated(path: string | undefined, prefix = ''): DomainError {
    return new DomainError(this.code, `${prefix}${this.message}`, path, this.retryAfterSeconds);
  }
}

export const notFound = (what = 'resource') => new DomainError('not_found', `${what} not found`);
export const forbidden = (message = 'not allowed') => new DomainError('forbidden', message);
export const validationFailed = (message: string, path?: string) => new DomainError('validation_failed', message, path);
/** A 409: only codes the catalog answers with 409 type-check here. */
export const conflict = (code: CodeWithStatus<409>, message: string, path?: string) => new DomainError(code, message, path);
