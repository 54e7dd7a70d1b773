// The one error type of the service. Anything thrown that is not an ApiError becomes a 500 with a
// generic message in the error middleware; clients never see internal error text.

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
    /** Fields of the error body beside the usual ones (a function's `invocationId`). */
    readonly fields?: { invocationId: string },
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, details?: ErrorDetail[], code = 'BAD_REQUEST') =>
  new ApiError(400, code, message, details);
export const validationFailed = (message: string, details?: ErrorDetail[]) =>
  new ApiError(400, 'VALIDATION_FAILED', message, details);
export const unauthorized = (message = 'Unauthorized', code = 'UNAUTHORIZED') =>
  new ApiError(401, code, message);
export const forbidden = (message = 'Forbidden', code = 'FORBIDDEN') => new ApiError(403, code, message);
export const notFound = (message = 'Not found', code = 'NOT_FOUND') => new ApiError(404, code, message);
export const conflict = (message: string, code = 'CONFLICT', details?: ErrorDetail[]) =>
  new ApiError(409, code, message, details);
export const payloadTooLarge = (message: string) => new ApiError(413, 'PAYLOAD_TOO_LARGE', message);
export const quotaExceeded = (message: string) => new ApiError(403, 'QUOTA_EXCEEDED', message);
export const tooManyRequests = (retryAfterSeconds: number, message = 'Too many requests') =>
  new ApiError(429, 'RATE_LIMITED', message, undefined, { 'Retry-After': String(retryAfterSeconds) });
export const serviceUnavailable = (message: string) => new ApiError(503, 'SERVICE_UNAVAILABLE', message);
/** A restore over the project is queued or running (docs/backups.md): its clients wait. */
export const projectRestoring = () =>
  new ApiError(
    503,
    'PROJECT_RESTORING',
    'The project is being restored from a backup; retry once the restore ends',
    undefined,
    { 'Retry-After': '10' },
  );

/**
 * A dependency (MongoDB, Redis) cannot be reached: a 503 naming it, the driver's error kept as
 * the cause for the log (it can name hosts). Raised by src/db and src/cache, nowhere else.
 */
export const dependencyUnavailable = (dependency: 'database' | 'cache', cause?: unknown) =>
  Object.assign(new ApiError(503, 'DEPENDENCY_UNAVAILABLE', `Unavailable: ${dependency}`), { cause });

/**
 * A project's own database (external database connection) did not answer within its deadline
 * (EXTERNAL_DB_TIMEOUT_MS): a 504, since the platform is up and the tenant's deployment is not
 * answering. Raised by src/db only.
 */
export const externalDatabaseTimeout = (cause?: unknown) =>
  Object.assign(
    new ApiError(
      504,
      'EXTERNAL_DB_TIMEOUT',
      "The project's own database did not answer in time; check the deployment and retry",
    ),
    { cause },
  );
