// One call of an HTTP hook: the developer's endpoint, POSTed the event signed per Standard
// Webhooks. https only (plain http where the operator allows it for webhooks), the restricted-host
// check again at every connection (IP literals first, names through the guarded lookup, so DNS
// cannot point a saved URL inside), no redirects, one deadline for the whole exchange, an answer
// of at most 64 KiB, and a keep-alive agent per host so busy hooks skip the TLS handshake. The
// platform's own API is never a target (src/lib/own-origins.ts).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import {
  guardedLookupFor,
  isRestrictedAddress,
  NOT_ALLOWED_REASON,
  RestrictedHostError,
  type HostAllowance,
} from '../../lib/restricted-hosts.js';
import type { OwnOrigins } from '../../lib/own-origins.js';
import { signedHeaders } from '../webhooks/signing.js';
import { urlProblem } from '../webhooks/http.js';
import type { InvocationOutcome } from './runtime-types.js';

export const MAX_ANSWER_BYTES = 64 * 1024;
/** Hosts with a pooled agent at one time; the least recently used one is closed past it. */
const MAX_AGENTS = 256;
const SOCKETS_PER_HOST = 64;

export interface HttpHookCall {
  url: string;
  /** The Standard Webhooks secret (`whsec_...`). */
  secret: string;
  /** The `webhook-id`: stable for the event, so a receiver can de-duplicate. */
  messageId: string;
  body: string;
  deadlineMs: number;
}

export interface HttpRuntimeOptions {
  allowHttp: boolean;
  allowPrivate: HostAllowance;
  own?: OwnOrigins;
}

export function httpRuntime(options: HttpRuntimeOptions) {
  const agents = new Map<string, http.Agent>();
  const lookup = guardedLookupFor(options.allowPrivate);

  function agentFor(url: URL): http.Agent {
    const key = `${url.protocol}//${url.host}`;
    let agent = agents.get(key);
    if (agent) {
      agents.delete(key); // re-inserted: the map's order is the use order
    } else {
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      const guarded = options.own ? options.own.guard(lookup, port) : lookup;
      const settings = { keepAlive: true, maxSockets: SOCKETS_PER_HOST, maxFreeSockets: 8, lookup: guarded };
      agent = url.protocol === 'https:' ? new https.Agent(settings) : new http.Agent(settings);
      if (agents.size >= MAX_AGENTS) {
        const [oldest, old] = agents.entries().next().value!;
        agents.delete(oldest);
        old.destroy();
      }
    }
    agents.set(key, agent);
    return agent;
  }

  async function call(input: HttpHookCall): Promise<InvocationOutcome> {
    const started = Date.now();
    const failed = (status: 'error' | 'timeout', message: string): InvocationOutcome => ({
      status,
      error: { message },
      logs: [],
      durationMs: Date.now() - started,
    });
    const problem = urlProblem(input.url, options);
    if (problem) return failed('error', `url: ${problem}`);
    const url = new URL(input.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && isRestrictedAddress(host, options.allowPrivate))
      return failed('error', NOT_ALLOWED_REASON);
    const own = options.own ? await options.own.check(url) : undefined;
    if (own) return failed('error', own);
    const client = url.protocol === 'https:' ? https : http;
    const headers = {
      ...signedHeaders(input.secret, input.messageId, input.body, new Date()),
      'user-agent': 'mongobaas-hooks/1',
      'content-length': String(Buffer.byteLength(input.body)),
    };
    return new Promise<InvocationOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: InvocationOutcome, keepSocket = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!keepSocket) request.destroy();
        resolve(outcome);
      };
      const agent = agentFor(url);
      const request = client.request(url, { method: 'POST', headers, agent });
      const timer = setTimeout(
        () => finish(failed('timeout', `no answer within ${input.deadlineMs} ms`)),
        input.deadlineMs,
      );
      request.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          finish(failed('error', `answered ${status} (redirects are not followed)`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            finish(failed('error', `the answer is larger than ${MAX_ANSWER_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (err) => finish(failed('error', err.message)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (status < 200 || status >= 300) {
            finish(failed('error', `answered ${status}: ${text.slice(0, 200)}`), true);
            return;
          }
          let value: unknown = undefined;
          if (text.trim() !== '') {
            try {
              value = JSON.parse(text);
            } catch {
              finish(failed('error', 'the answer is not JSON'), true);
              return;
            }
          }
          finish({ status: 'ok', value, logs: [], durationMs: Date.now() - started }, true);
        });
      });
      request.on('error', (err) => {
        const message = err instanceof RestrictedHostError ? NOT_ALLOWED_REASON : err.message;
        finish(failed('error', message));
      });
      request.end(input.body);
    });
  }

  return {
    call,
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}

export type HttpRuntime = ReturnType<typeof httpRuntime>;
