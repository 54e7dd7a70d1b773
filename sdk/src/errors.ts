// The one error the client throws: what the service answered (status, code, message, the field
// it names, the request id), or a network failure (status 0, code NETWORK_ERROR).

export interface ErrorDetail {
  path: string;
  message: string;
}

export class MongobaasError extends Error {
  override readonly name = 'MongobaasError';
  /** The HTTP status; 0 when no answer came (network, CORS, abort). */
  readonly status: number;
  /** The service's machine-readable code (`VALIDATION_FAILED`, `QUOTA_EXCEEDED`, ...). */
  readonly code: string;
  /** The first field the service named, without its `body.`/`query.` prefix. */
  readonly field?: string;
  readonly details: ErrorDetail[];
  /** `x-request-id` of the answer: quote it to the operator to find the request in the logs. */
  readonly requestId?: string;
  /** Seconds from `Retry-After`, on a 429 or 503. */
  readonly retryAfter?: number;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: ErrorDetail[];
    requestId?: string;
    retryAfter?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    const first = this.details[0]?.path;
    if (first) this.field = first.replace(/^(body|query|path|header)\./, '');
    if (init.requestId) this.requestId = init.requestId;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }
}

/** Reads `Retry-After` (seconds or an HTTP date) as seconds. */
export function retryAfterSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
