// ctx.fetch for hosted code, under the webhook rules (src/services/webhooks/http.ts): https only
// unless the operator allows http, the restricted-host check on IP literals and at connection
// time (names through the guarded lookup, so DNS cannot point inside), no redirects (a 3xx is an
// answer like any other), a time limit, and caps on the request and response bodies. The
// platform's own API is refused under every rule (src/lib/own-origins.ts): a call back into it
// would run the project's hooks outside the depth rule.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { badRequest } from '../../http/errors.js';
import {
  isRestrictedAddress,
  NOT_ALLOWED_REASON,
  RestrictedHostError,
  type HostResolver,
} from '../../lib/restricted-hosts.js';
import { OwnOriginError, type OwnOrigins } from '../../lib/own-origins.js';
import { urlProblem } from '../webhooks/http.js';

export const FETCH_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const MAX_FETCH_REQUEST_BYTES = 1024 * 1024;
export const MAX_FETCH_RESPONSE_BYTES = 1024 * 1024;
/** Headers the platform sets itself or that would change how the connection behaves. */
const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);

export interface FetchRules {
  allowHttp: boolean;
  allowPrivate: boolean;
  timeoutMs: number;
  resolver: Pick<HostResolver, 'guardedLookup' | 'lookup'>;
  /** The platform's own origins, refused whatever the other rules allow. */
  own?: OwnOrigins;
}

export interface FetchAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A refusal hosted code sees as a rejected promise with this message. */
const refused = (message: string) => badRequest(`ctx.fetch: ${message}`, undefined, 'FETCH_REFUSED');

export async function hostedFetch(
  req: { url?: unknown; method?: unknown; headers?: unknown; body?: unknown },
  rules: FetchRules,
): Promise<FetchAnswer> {
  if (typeof req.url !== 'string') throw refused('the URL must be a string');
  const problem = urlProblem(req.url, rules, false);
  if (problem) throw refused(problem);
  const method = typeof req.method === 'string' ? req.method.toUpperCase() : 'GET';
  if (!(FETCH_METHODS as readonly string[]).includes(method))
    throw refused(`the method must be one of ${FETCH_METHODS.join(', ')}`);
  if (req.body !== undefined && req.body !== null && typeof req.body !== 'string')
    throw refused('the body must be a string');
  const body = (req.body as string | undefined) ?? '';
  if (Buffer.byteLength(body) > MAX_FETCH_REQUEST_BYTES)
    throw refused(`the body is larger than ${MAX_FETCH_REQUEST_BYTES} bytes`);
  const headers = requestHeaders(req.headers);
  const url = new URL(req.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isRestrictedAddress(host, rules.allowPrivate)) throw refused(NOT_ALLOWED_REASON);
  const own = rules.own ? await rules.own.check(url) : undefined;
  if (own) throw refused(own);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const lookup = rules.allowPrivate ? rules.resolver.lookup : rules.resolver.guardedLookup;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<FetchAnswer>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | undefined, answer?: FetchAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      if (err) reject(err);
      else resolve(answer!);
    };
    const request = client.request(url, {
      method,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      lookup: rules.own ? rules.own.guard(lookup, port) : lookup,
    });
    const timer = setTimeout(
      () => finish(refused(`no answer within ${rules.timeoutMs} ms`)),
      rules.timeoutMs,
    );
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_FETCH_RESPONSE_BYTES)
          return finish(refused(`the response is larger than ${MAX_FETCH_RESPONSE_BYTES} bytes`));
        chunks.push(chunk);
      });
      res.on('end', () =>
        finish(undefined, {
          status: res.statusCode ?? 0,
          headers: responseHeaders(res.headers),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', (err) => finish(refused(err.message)));
    });
    request.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof OwnOriginError) return finish(refused(err.message));
      if (err instanceof RestrictedHostError) return finish(refused(NOT_ALLOWED_REASON));
      finish(
        refused(
          `the request failed${typeof code === 'string' && /^E[A-Z_]+$/.test(code) ? ` (${code})` : ''}`,
        ),
      );
    });
    request.end(body);
  });
}

function requestHeaders(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw refused('the headers must be an object of strings');
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'string') throw refused(`the header ${name} must be a string`);
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n]/.test(value))
      throw refused(`the header ${name} is not valid`);
    if (!DROPPED_HEADERS.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}

function responseHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
