// An HTTP hook endpoint for the tests: a loopback server that verifies every call with the
// `standardwebhooks` package (independent of the service's signing), records it, and answers each
// path with what the test scripted: a JSON value, a status, a delay, or an oversized body.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface HookCallRecord {
  path: string;
  headers: http.IncomingHttpHeaders;
  event: any;
  verified: boolean;
  verifyError?: string;
}

export interface HookAnswer {
  status?: number;
  json?: unknown;
  delayMs?: number;
  /** A body of this many bytes instead of `json`. */
  bytes?: number;
  headers?: Record<string, string>;
}

export async function startHookReceiver() {
  const calls: HookCallRecord[] = [];
  const answers = new Map<string, (event: any) => HookAnswer>();
  const secrets = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const record: HookCallRecord = { path, headers: req.headers, event: undefined, verified: false };
      try {
        record.event = new Webhook(secrets.get(path) ?? 'whsec_AAAA').verify(body, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        });
        record.verified = true;
      } catch (err) {
        record.verifyError = (err as Error).message;
      }
      calls.push(record);
      const answer = answers.get(path)?.(record.event) ?? {};
      const send = () => {
        if (res.destroyed) return;
        const text =
          answer.bytes !== undefined
            ? 'x'.repeat(answer.bytes)
            : answer.json === undefined
              ? ''
              : JSON.stringify(answer.json);
        res
          .writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
          .end(text);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    calls,
    on: (path: string) => calls.filter((c) => c.path === path),
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    answer(path: string, answer: HookAnswer | ((event: any) => HookAnswer)) {
      answers.set(path, typeof answer === 'function' ? answer : () => answer);
    },
    secret(path: string, secret: string) {
      secrets.set(path, secret);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type HookReceiver = Awaited<ReturnType<typeof startHookReceiver>>;
