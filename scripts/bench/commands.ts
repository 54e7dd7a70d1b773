// The database commands per request, for `npm run bench`: a TCP proxy between a server process
// and the database counts every command the process sends (the first key of each OP_MSG body,
// with the collection it names), whatever sent it: the request's own commands and the
// platform's background writes alike (request log, quota, usage). A server started on the
// proxy's address is loaded with a fixed number of requests of one kind; the counts divided by
// the requests answered are its commands per request. The driver's heartbeats (`hello` on its
// monitoring connections) are not the requests' and are left out.
import { createServer, connect, type Server, type Socket } from 'node:net';

const OP_MSG = 2013;
const OP_QUERY = 2004;
const HEARTBEATS = new Set(['hello', 'ismaster', 'isMaster']);

/** The body (kind 0 section) of an OP_MSG: the command document as sent. */
function bodyOf(message: Buffer): Buffer | undefined {
  if (message.readInt32LE(12) !== OP_MSG) return undefined;
  let at = 20;
  while (at < message.length) {
    if (message[at] === 0) return message.subarray(at + 1, at + 1 + message.readInt32LE(at + 1));
    at += 1 + message.readInt32LE(at + 1);
  }
  return undefined;
}

/** `find items`, `insert request_logs`: the command and the collection it names (if a string). */
function commandOf(message: Buffer): string | undefined {
  const opCode = message.readInt32LE(12);
  if (opCode === OP_QUERY) return 'hello';
  if (opCode !== OP_MSG) return `opCode ${opCode}`;
  let at = 20; // header (16) and flagBits (4)
  while (at < message.length) {
    const kind = message[at]!;
    if (kind === 0) {
      const doc = at + 1;
      const type = message[doc + 4]!;
      const nameEnd = message.indexOf(0, doc + 5);
      const name = message.toString('utf8', doc + 5, nameEnd);
      if (type !== 0x02) return name;
      const length = message.readInt32LE(nameEnd + 1);
      return `${name} ${message.toString('utf8', nameEnd + 5, nameEnd + 4 + length)}`;
    }
    at += 1 + message.readInt32LE(at + 1); // a document sequence: its size follows the kind
  }
  return undefined;
}

export interface CommandProxy {
  /** The URI to give a server instead of the database's. */
  uri: string;
  /** Counts since the last `reset`, by `command collection`. */
  counts(): Map<string, number>;
  /** The first command document of each name since the last `reset`, as sent (BSON). */
  samples(): Map<string, Buffer>;
  reset(): void;
  close(): Promise<void>;
}

export async function commandProxy(upstreamUri: string): Promise<CommandProxy> {
  const match = /^mongodb:\/\/([^/:]+):(\d+)(\/.*)?$/.exec(upstreamUri);
  if (!match) throw new Error(`commandProxy: cannot read host and port from ${upstreamUri}`);
  const [, host, port, rest = '/'] = match;
  let counts = new Map<string, number>();
  let samples = new Map<string, Buffer>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), host!);
    sockets.add(client).add(upstream);
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 16 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const name = commandOf(pending.subarray(0, length));
        if (name && !HEARTBEATS.has(name.split(' ')[0]!)) {
          counts.set(name, (counts.get(name) ?? 0) + 1);
          if (!samples.has(name)) {
            const body = bodyOf(pending.subarray(0, length));
            if (body) samples.set(name, Buffer.from(body));
          }
        }
        pending = pending.subarray(length);
      }
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    uri: `mongodb://127.0.0.1:${own}${rest}`,
    counts: () => counts,
    samples: () => samples,
    reset: () => {
      counts = new Map();
      samples = new Map();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Sends `total` requests, `concurrency` at a time; the number answered with `expect`. */
export async function sendRequests(
  total: number,
  concurrency: number,
  request: (i: number) => { method: string; url: string; body?: string; headers: Record<string, string> },
  expect: number,
): Promise<number> {
  let next = 0;
  let answered = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const { method, url, body, headers } = request(next++);
        try {
          // A request that never ends (a server stuck on its database) must not hold the run.
          const res = await fetch(url, {
            method,
            body,
            headers: { 'content-type': 'application/json', ...headers },
            signal: AbortSignal.timeout(30_000),
          });
          await res.arrayBuffer();
          if (res.status === expect) answered++;
        } catch {
          // Not answered: left out of the requests the counts are divided by.
        }
      }
    }),
  );
  return answered;
}

/** Counts per request, largest first, as `find items 1.00, insert request_logs 0.01`. */
export function perRequest(counts: Map<string, number>, requests: number): { name: string; count: number }[] {
  return [...counts]
    .map(([name, n]) => ({ name, count: n / Math.max(requests, 1) }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}
