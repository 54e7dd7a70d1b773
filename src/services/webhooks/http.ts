// One webhook POST: https only unless the operator allows http (or the target is on loopback under
// the development profile's allowance), the restricted-host check at
// connection time (IP literals checked first, names through the guarded lookup, so DNS cannot
// point a saved URL inside), no redirects (a 3xx is an answer like any other), a time limit for
// the whole exchange, and at most 1 KiB of the response kept. The platform's own API is never a
// target (src/lib/own-origins.ts).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Config } from '../../config.js';
import {
  guardedLookupFor,
  isLoopbackHost,
  isRestrictedAddress,
  type HostAllowance,
  NOT_ALLOWED_REASON,
  RestrictedHostError,
} from '../../lib/restricted-hosts.js';
import { OwnOriginError, type OwnOrigins } from '../../lib/own-origins.js';

export const RESPONSE_BYTES = 1024;

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: HostAllowance;
  allowHttp: boolean;
  own?: OwnOrigins;
}

/**
 * What webhook and HTTP hook targets may reach besides public hosts: every private range under
 * ALLOW_PRIVATE_HOSTS, localhost and loopback addresses under WEBHOOK_ALLOW_LOOPBACK (on by
 * default in the development profile, `npm start`), nothing otherwise.
 */
export function targetAllowance(config: Pick<Config, 'allowPrivateHosts' | 'webhooks'>): HostAllowance {
  if (config.allowPrivateHosts) return true;
  return config.webhooks.allowLoopback ? 'loopback' : false;
}

export interface PostResult {
  status: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
  /** Network errors, timeouts, 408, 429 and 5xx are retried; nothing else is. */
  retryable: boolean;
}

/** The host name a webhook URL targets, lower case (the per-host cap's key); '' when unparseable. */
export function targetHost(raw: string): string {
  try {
    return new URL(raw).hostname.toLowerCase();
  } catch {
    return '';
  }
}

export const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * Why a URL may not be a webhook target, as a sentence saying what to do (the caller names the
 * field), or undefined. Does not resolve names. `loopbackHint`: whether the development profile's
 * http on loopback applies to this kind of target (webhooks and HTTP hooks, not ctx.fetch).
 */
export function urlProblem(
  raw: string,
  options: Pick<PostOptions, 'allowHttp' | 'allowPrivate'>,
  loopbackHint = true,
) {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The address is not a URL: enter a full address such as https://hooks.example.com/in.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `Addresses starting with ${url.protocol}// are not supported: use an https:// address.`;
  const http =
    options.allowHttp ||
    options.allowPrivate === true ||
    (options.allowPrivate === 'loopback' && isLoopbackHost(url.hostname));
  if (url.protocol === 'http:' && !http && !loopbackHint) return 'Use an https:// address.';
  if (url.protocol === 'http:' && !http)
    return 'Use an https:// address: plain http is accepted only for localhost and loopback addresses in the development profile, or where the operator sets WEBHOOK_ALLOW_HTTP=true.';
  if (url.username || url.password)
    return 'Remove the user name and password from the address: credentials in a URL are not accepted.';
  return undefined;
}

export async function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostResult> {
  const started = Date.now();
  const done = (partial: Omit<PostResult, 'durationMs'>): PostResult => ({
    ...partial,
    durationMs: Date.now() - started,
  });
  const problem = urlProblem(target, options);
  if (problem)
    return done({
      status: null,
      response: null,
      error: `The webhook URL is refused. ${problem}`,
      retryable: false,
    });
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isRestrictedAddress(host, options.allowPrivate)) {
    return done({ status: null, response: null, error: NOT_ALLOWED_REASON, retryable: false });
  }
  const own = options.own ? await options.own.check(url) : undefined;
  if (own) return done({ status: null, response: null, error: own, retryable: false });
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const lookup = guardedLookupFor(options.allowPrivate);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(done(result));
    };
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      lookup: options.own ? options.own.guard(lookup, port) : lookup,
    });
    const timer = setTimeout(
      () =>
        finish({
          status: null,
          response: null,
          error: `timed out after ${options.timeoutMs} ms`,
          retryable: true,
        }),
      options.timeoutMs,
    );
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = () => {
        const text = Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8');
        const ok = status >= 200 && status < 300;
        finish({
          status,
          response: text,
          error: ok ? null : `HTTP ${status}`,
          retryable: !ok && isRetryableStatus(status),
        });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_BYTES) answer();
      });
      res.on('end', answer);
      res.on('error', answer);
    });
    request.on('error', (err) => {
      const restricted = err instanceof RestrictedHostError || err instanceof OwnOriginError;
      finish({ status: null, response: null, error: err.message, retryable: !restricted });
    });
    request.end(body);
  });
}
