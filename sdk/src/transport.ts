// One place that speaks HTTP to the service: the API key on every request, the end user's access
// token when signed in (refreshed once, however many requests found it expired), the envelope
// `{ success, data, message }` unwrapped, failures turned into MongobaasError, and a 429 or 503
// retried only when the caller asked for it, after the `Retry-After` the service sent.
import { MongobaasError, retryAfterSeconds, type ErrorDetail } from './errors.js';

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];
export type Query = Record<string, QueryValue>;

export interface RetryOptions {
  /** Tries in all for a request answered 429 or 503 with `Retry-After` (default 3). */
  attempts?: number;
  /** The longest wait between two tries; a longer `Retry-After` ends the retries (default 30 s). */
  maxDelayMs?: number;
}

export interface Envelope<T> {
  success: true;
  data: T;
  message: string;
  pagination?: unknown;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** A body sent as is (a file's bytes), with `contentType`. */
  raw?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Send the signed-in user's access token (default true). */
  auth?: boolean;
  /** Overrides the client's retry option for this request. */
  retry?: RetryOptions | false;
}

/** The session's side of a request: the current access token, and one refresh when it expired. */
export interface TokenSource {
  accessToken(): Promise<string | null>;
  /** Called with the token the service refused as expired; resolves to a fresh one or null. */
  renew(expired: string): Promise<string | null>;
}

export interface TransportOptions {
  url: string;
  key: string;
  fetch?: typeof fetch;
  retry?: RetryOptions | false;
  headers?: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export class Transport {
  readonly url: string;
  readonly key: string;
  tokens: TokenSource | undefined;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.key = options.key;
    // Bound, so that a browser's fetch is never called on another `this`.
    this.fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The client's fetch, for requests that are not the service's envelope (a stream, a presigned PUT). */
  rawFetch(input: string, init: RequestInit): Promise<Response> {
    return this.fetcher(input, init);
  }

  /** The URL of a path on the service, with its query. */
  href(path: string, query?: Query): string {
    return `${this.url}${path}${queryString(query)}`;
  }

  /** The whole envelope (the list reads its `pagination`). */
  async send<T>(method: string, path: string, options: RequestOptions = {}): Promise<Envelope<T>> {
    const response = await this.fetchOk(method, path, options);
    if (response.status === 204) return { success: true, data: null as T, message: '' };
    return (await response.json()) as Envelope<T>;
  }

  /** The envelope's `data`. */
  async data<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.send<T>(method, path, options)).data;
  }

  /** A response with a 2xx status, after the token renewal and the retries; the body unread. */
  async fetchOk(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const retry = options.retry ?? this.options.retry ?? false;
    const attempts = retry ? Math.max(1, retry.attempts ?? 3) : 1;
    let token = options.auth === false || !this.tokens ? null : await this.tokens.accessToken();
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      const response = await this.once(method, path, options, token);
      if (response.ok) return response;
      const error = await errorOf(response);
      if (response.status === 401 && token && !renewed && error.code === 'TOKEN_EXPIRED' && this.tokens) {
        renewed = true;
        token = await this.tokens.renew(token);
        if (token) {
          attempt--;
          continue;
        }
      }
      const wait = error.retryAfter;
      const retriable = (response.status === 429 || response.status === 503) && wait !== undefined;
      if (!retry || !retriable || attempt >= attempts || wait * 1000 > (retry.maxDelayMs ?? 30_000))
        throw error;
      await sleep(wait * 1000);
    }
  }

  private async once(method: string, path: string, options: RequestOptions, token: string | null) {
    const headers: Record<string, string> = {
      'x-api-key': this.key,
      ...this.options.headers,
      ...options.headers,
    };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (options.raw !== undefined) {
      body = options.raw;
      if (options.contentType) headers['content-type'] = options.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    try {
      return await this.fetcher(this.href(path, options.query), {
        method,
        headers,
        body,
        signal: options.signal,
      });
    } catch (cause) {
      throw new MongobaasError({
        status: 0,
        code: (cause as Error)?.name === 'AbortError' ? 'ABORTED' : 'NETWORK_ERROR',
        message: `The request to ${this.url} failed before an answer came (network, CORS or abort): ${String(
          (cause as Error)?.message ?? cause,
        )}`,
        cause,
      });
    }
  }
}

/** The service's failure envelope `{ success: false, message, code, details? }` as an error. */
export async function errorOf(response: Response): Promise<MongobaasError> {
  let body: { message?: string; code?: string; details?: ErrorDetail[]; requestId?: string } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return new MongobaasError({
    status: response.status,
    code: body.code ?? `HTTP_${response.status}`,
    message: body.message ?? `${response.status} ${response.statusText}`.trim(),
    details: Array.isArray(body.details) ? body.details : undefined,
    requestId: response.headers.get('x-request-id') ?? body.requestId,
    retryAfter: retryAfterSeconds(response.headers.get('retry-after')),
  });
}
