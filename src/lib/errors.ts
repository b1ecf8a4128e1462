/**
 * The one error type business code throws. `code` is stable and documented in the API;
 * `status` is the HTTP status the transport maps it to (src/http/errors.ts); `path` names the
 * offending input field (dot-separated) when there is one.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what = 'resource') => new DomainError('not_found', 404, `${what} not found`);
export const forbidden = (message = 'not allowed') => new DomainError('forbidden', 403, message);
export const validationFailed = (message: string, path?: string) =>
  new DomainError('validation_failed', 422, message, path);
export const conflict = (code: string, message: string, path?: string) => new DomainError(code, 409, message, path);
