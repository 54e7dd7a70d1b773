// A socket-level veto for addresses a listener refuses while the driver is about to connect to
// them. The MongoDB driver connects to the replica-set members a server reports; a member given as
// an IP literal never reaches the guarded `lookup` (net.connect skips it), and the event that
// announces a new member (`serverDescriptionChanged`) comes in the same synchronous run that opens
// the new member's monitoring socket, so closing the client from the listener is too late for that
// one socket. Every client socket is announced on the `net.client.socket` diagnostics channel
// before it connects (TLS ones too); those announced in the run where a listener refused some
// literal addresses are given a block list of exactly those addresses, which Node checks before
// connecting. Other sockets, and the same sockets to any other address, are untouched.
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

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
