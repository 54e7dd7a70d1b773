// The HTTP client of the integration tests. Every response to a documented operation is checked
// against the spec: its status must be documented and its body must match the schema. Each
// (operation, status) seen is recorded for the coverage check in hooks.ts.
import { expect } from 'chai';
import type { OpenAPIBackend } from 'openapi-backend';
import { createValidator } from '../../src/http/router.js';
import { loadSpec, type HttpRole } from '../../src/app.js';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, for malformed or oversized bodies; an async iterable is streamed (chunked). */
  rawBody?: string | Buffer | AsyncIterable<Uint8Array>;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
}

const validators = new Map<HttpRole, OpenAPIBackend>();
export const exercised = new Map<HttpRole, Set<string>>();

export function validatorFor(role: HttpRole): OpenAPIBackend {
  let api = validators.get(role);
  if (!api) {
    api = createValidator(loadSpec(role));
    validators.set(role, api);
  }
  return api;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly role: HttpRole,
    readonly defaultHeaders: Record<string, string> = {},
  ) {}

  /** A client that sends these headers on every request (an API key, a cookie, a token). */
  with(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.baseUrl, this.role, { ...this.defaultHeaders, ...headers });
  }

  async request<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const url = new URL(path, this.baseUrl);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    let body: RequestOptions['rawBody'] = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const streamed = body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body);
    const res = await fetch(url, {
      method,
      headers,
      body: body as BodyInit | undefined,
      ...(streamed ? { duplex: 'half' } : {}),
    } as RequestInit);
    const text = await res.text();
    // JSON, not JSON Lines (application/x-ndjson: a collection export).
    const parsed = /\bjson\b/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
    const response: ApiResponse<T> = { status: res.status, body: parsed as T, headers: res.headers, text };
    this.check(method, url.pathname, response);
    return response;
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  delete<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('DELETE', path, { ...options, body });
  }

  private check(method: string, path: string, res: ApiResponse) {
    expect(res.headers.get('x-request-id'), `x-request-id on ${method} ${path}`).to.be.a('string');
    const api = validatorFor(this.role);
    const operation = api.router.matchOperation({ method, path, headers: {} });
    // A 405 comes from the route fallback, not from an operation: openapi-backend matches a path
    // like /api/data/x/bulk to {id}'s GET, which the server's routing gives to the literal route.
    if (!operation || (res.status === 405 && res.body?.code === 'METHOD_NOT_ALLOWED')) return;
    const documented = Object.keys(operation.responses ?? {});
    expect(documented, `${operation.operationId} documents status ${res.status}`).to.include(
      String(res.status),
    );
    const result = api.validateResponse(res.body, operation, res.status);
    expect(
      result.errors ?? [],
      `${operation.operationId} ${res.status} body matches the spec: ${res.text}`,
    ).to.deep.equal([]);
    let seen = exercised.get(this.role);
    if (!seen) exercised.set(this.role, (seen = new Set()));
    seen.add(`${operation.operationId} ${res.status}`);
  }
}
