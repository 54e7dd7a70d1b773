// A webhook receiver for the tests: an HTTP server on loopback that verifies every request with
// the `standardwebhooks` package (an implementation independent of the service's), answers each
// path with a scripted sequence of statuses (or holds the request unanswered, or answers after a
// delay), and records what came and which deliveries completed. Listens on 127.0.0.1 unless
// another loopback address is given (a second host name for the per-host cap).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  id: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  payload: any;
  /** null: no secret known for the path; else whether the signature verified. */
  verified: boolean | null;
  verifyError?: string;
  answered?: number;
  /** The answer was fully written: the sender saw a completed delivery. */
  completed: boolean;
}

export async function startReceiver(host = '127.0.0.1') {
  const received: Received[] = [];
  const scripts = new Map<string, (number | 'hold')[]>();
  const delays = new Map<string, number>();
  const secrets = new Map<string, string>();
  const held: { path: string; res: http.ServerResponse }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const entry: Received = {
        path,
        id: String(req.headers['webhook-id'] ?? ''),
        headers: req.headers,
        body,
        payload: undefined,
        verified: null,
        completed: false,
      };
      try {
        entry.payload = JSON.parse(body);
      } catch {
        entry.payload = undefined;
      }
      const secret = secrets.get(path);
      if (secret) {
        try {
          new Webhook(secret).verify(body, {
            'webhook-id': String(req.headers['webhook-id']),
            'webhook-timestamp': String(req.headers['webhook-timestamp']),
            'webhook-signature': String(req.headers['webhook-signature']),
          });
          entry.verified = true;
        } catch (err) {
          entry.verified = false;
          entry.verifyError = (err as Error).message;
        }
      }
      received.push(entry);
      const next = scripts.get(path)?.shift() ?? 200;
      if (next === 'hold') {
        held.push({ path, res });
        return;
      }
      entry.answered = next;
      res.on('finish', () => (entry.completed = true));
      const redirect = next >= 300 && next < 400 ? { location: `${path}/redirected` } : {};
      const answer = () =>
        res
          .writeHead(next, { 'content-type': 'text/plain', ...redirect })
          .end(`answer ${next} ` + 'x'.repeat(2000));
      const delay = delays.get(path);
      if (delay) setTimeout(answer, delay);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;

  const waitFor = async <T>(check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const value = check();
      if (value) return value;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`receiver: condition not met within ${timeoutMs} ms`);
  };

  return {
    port,
    received,
    url: (path: string) => `http://${host}:${port}${path}`,
    /** Answers every request on `path` only after `ms` (a slow receiver that still succeeds). */
    delay(path: string, ms: number) {
      delays.set(path, ms);
    },
    /** Answers to the next requests on `path`, in order; 200 after that. */
    script(path: string, answers: (number | 'hold')[]) {
      scripts.set(path, [...answers]);
    },
    secret(path: string, secret: string) {
      secrets.set(path, secret);
    },
    on: (path: string) => received.filter((r) => r.path === path),
    waitFor,
    /** Answers the oldest request held on `path` (if its connection is still open). */
    release(path: string, status = 200) {
      const index = held.findIndex((h) => h.path === path);
      if (index < 0) return;
      const [entry] = held.splice(index, 1);
      entry!.res.writeHead(status).end('released');
    },
    async close() {
      for (const { res } of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
