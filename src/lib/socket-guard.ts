// A socket-level veto for addresses a listener refuses while the driver is about to connect to
// them. The MongoDB driver connects to the replica-set members a server reports; a member given as
// an IP literal never reaches the guarded `lookup` (net.connect skips it), and the event that
// announces a new member (`serverDescriptionChanged`) comes in the same synchronous run that opens
// the new member's monitoring socket, so closing the client from the listener is too late for that
// one socket. Every client socket is announced on the `net.client.socket` diagnostics channel
// before it connects (TLS ones too); those announced in the run where a listener refused some
// literal addresses are given a block list of exactly those addresses, which Node checks before
// connecting. Other sockets, and the same sockets to any other address, are untouched.
// Both the channel and the socket's `blockList` are Node internals a new runtime may change, so
// the process checks at start that the guard still refuses a connection (checkSocketGuard) and
// refuses to start when it does not.
import { subscribe } from 'node:diagnostics_channel';
import net, { type Socket } from 'node:net';

/** Addresses refused in the current synchronous run; undefined the rest of the time. */
let refusedNow: Set<string> | undefined;
let installed = false;

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** Starts announcing-time checks (once per process). */
export function guardSockets(): void {
  if (installed) return;
  installed = true;
  subscribe('net.client.socket', (message) => {
    const hosts = refusedNow;
    if (!hosts) return;
    // Node asks `blockList.check(address, family)` just before it connects (net.js internalConnect).
    (message as { socket: Socket & { blockList?: unknown } }).socket.blockList = {
      check: (address: string) => hosts.has(bare(address)),
    };
  });
}

/**
 * Refuses connections to these hosts (IP literals; names are the guarded lookup's) for the sockets
 * opened in the rest of the current synchronous run.
 */
export function refuseForThisRun(hosts: string[]): void {
  if (!refusedNow) {
    refusedNow = new Set();
    queueMicrotask(() => (refusedNow = undefined));
  }
  for (const host of hosts) refusedNow.add(bare(host));
}

export class SocketGuardError extends Error {}

let checked: Promise<void> | undefined;

/**
 * Proves on this runtime, once per process, that the guard works: a connection to a listener on
 * loopback opened in a run that refused 127.0.0.1 must fail without reaching it, and the same
 * connection outside such a run must reach it (else the check itself proves nothing). Throws
 * SocketGuardError, naming the runtime, when either is not so. `refuse` is for the check's test.
 */
export function checkSocketGuard(refuse: (hosts: string[]) => void = refuseForThisRun): Promise<void> {
  if (refuse !== refuseForThisRun) return selfTest(refuse);
  return (checked ??= selfTest(refuse));
}

async function selfTest(refuse: (hosts: string[]) => void): Promise<void> {
  guardSockets();
  let reached = 0;
  const server = net.createServer((socket) => {
    reached++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
  const { port } = server.address() as net.AddressInfo;
  const attempt = () =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
  try {
    refuse(['127.0.0.1']);
    const guarded = await attempt(); // opened in the same run: refused
    const open = await attempt();
    // The listener counts what reached it once the open connection's arrival is seen.
    for (let i = 0; i < 500 && reached === 0; i++) await new Promise((r) => setTimeout(r, 10));
    if (guarded === 'connected' || open !== 'connected' || reached !== 1) {
      throw new SocketGuardError(
        `the socket guard does not work on Node.js ${process.version} (a refused connection ` +
          `${guarded === 'connected' ? 'went through' : `ended with ${guarded}`}, an allowed one ` +
          `${open === 'connected' ? 'connected' : `ended with ${open}`}): it relies on the ` +
          "'net.client.socket' diagnostics channel and a socket's blockList; run the Node.js " +
          'version of .node-version, or fix src/lib/socket-guard.ts for this one',
      );
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
