// The platform's own origins, refused as targets of ctx.fetch, HTTP hooks and webhooks. A call
// from a project's code back into the platform's API (with the secret key from the function's
// env, say) would run the project's hooks again as a fresh client request, outside the depth rule
// that ctx.db obeys, so such a chain would have no end. Own means: the hosts and ports of
// PUBLIC_URL, DASHBOARD_URL and PUBLIC_INTERNAL_URL, the addresses those names resolve to on those
// ports, HOST on PUBLIC_PORT and DASHBOARD_PORT, and every address this process listens on. A
// loopback or unspecified listener is reached through any loopback address, so all of them count.
// The check holds under every host allowance (loopback receivers, ALLOW_PRIVATE_HOSTS).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { Server } from 'node:http';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';

const lookupAll = promisify(dnsLookup);
const NAMES_TTL_MS = 60_000;

export const OWN_ORIGIN_REASON =
  "This address is the platform's own API (PUBLIC_URL, DASHBOARD_URL or the service's own port): " +
  'functions, HTTP hooks and webhooks may not call it. Use ctx.db inside a function.';

export class OwnOriginError extends Error {
  readonly code = 'EOWNORIGIN';
  constructor() {
    super(OWN_ORIGIN_REASON);
  }
}

interface Endpoint {
  /** A normalized IP address, or 'any' for a listener on every address. */
  address: string;
  port: number;
}

/** Servers of this process that listen now (every HTTP role started by createApp). */
const listening = new Map<Server, Endpoint>();

/** Counts a server's address as the platform's own for as long as it listens. */
export function noteListening(server: Server): void {
  const record = () => {
    const address = server.address();
    if (address && typeof address === 'object')
      listening.set(server, { address: listenAddress(address.address), port: address.port });
  };
  if (server.listening) record();
  server.on('listening', record);
  server.on('close', () => listening.delete(server));
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Brackets, zone and IPv4-mapped forms removed, lower case. */
export function normalizeAddress(address: string): string {
  const bare = address
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1]!;
  // The WHATWG URL parser writes a mapped address in hex (::ffff:7f00:1).
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare);
  if (!hex) return bare;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

const isUnspecified = (address: string) => address === '0.0.0.0' || address === '::';
const isLoopback = (address: string) => {
  const family = isIP(address);
  return family !== 0 && loopback.check(address, family === 4 ? 'ipv4' : 'ipv6');
};
const listenAddress = (address: string) => {
  const bare = normalizeAddress(address);
  return isUnspecified(bare) ? 'any' : bare;
};

function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const entry of list ?? []) out.add(normalizeAddress(entry.address));
  return out;
}

/** Whether a connection to `address` reaches a listener bound to `own` on the same port. */
function reaches(address: string, own: string): boolean {
  if (isUnspecified(address)) return true; // connect() to 0.0.0.0 or :: lands on this machine
  if (own === 'any') return isLoopback(address) || localAddresses().has(address);
  if (isLoopback(own)) return isLoopback(address);
  return address === own;
}

const defaultPort = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

export interface OwnOriginsSettings {
  host: string;
  publicPort: number;
  dashboardPort: number;
  publicUrl: string;
  dashboardUrl: string;
  publicInternalUrl: string;
}

export interface OwnOrigins {
  /**
   * Why a URL may not be called (OWN_ORIGIN_REASON) or undefined; resolves the own names when
   * stale. `resolve`: the URL's own name too (when saving a target; connections use `guard`).
   */
  check(url: URL, resolve?: boolean): Promise<string | undefined>;
  /** True when a connection to this address and port reaches the platform. */
  isOwnAddress(address: string, port: number): boolean;
  /** `lookup` that also refuses (OwnOriginError) names resolving to the platform on `port`. */
  guard(lookup: LookupFunction, port: number): LookupFunction;
}

export function ownOrigins(
  settings: OwnOriginsSettings,
  resolve: (host: string) => Promise<LookupAddress[]> = (host) => lookupAll(host, { all: true }),
): OwnOrigins {
  const urls = [settings.publicUrl, settings.dashboardUrl, settings.publicInternalUrl]
    .filter(Boolean)
    .map((raw) => new URL(raw));
  /** Host names with their ports: the names themselves and what they resolve to are own. */
  const names: { name: string; port: number }[] = urls
    .filter((url) => isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0)
    .map((url) => ({ name: url.hostname.toLowerCase().replace(/\.$/, ''), port: defaultPort(url) }));
  const fixed: Endpoint[] = urls
    .filter((url) => isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0)
    .map((url) => ({ address: normalizeAddress(url.hostname), port: defaultPort(url) }));
  const hostIsName = isIP(settings.host) === 0;
  for (const port of [settings.publicPort, settings.dashboardPort].filter((p) => p > 0)) {
    if (hostIsName) names.push({ name: settings.host.toLowerCase(), port });
    else fixed.push({ address: listenAddress(settings.host), port });
  }
  let resolved: Endpoint[] = [];
  let resolvedAt = -Infinity;
  let pending: Promise<void> | undefined;

  /** The own names resolved again once a minute; a name that does not resolve adds nothing. */
  function refresh(): Promise<void> {
    if (Date.now() - resolvedAt < NAMES_TTL_MS) return Promise.resolve();
    return (pending ??= (async () => {
      const found = await Promise.all(
        names.map(async ({ name, port }) => {
          const list = await resolve(name).catch(() => [] as LookupAddress[]);
          return list.map((a) => ({ address: normalizeAddress(a.address), port }));
        }),
      );
      resolved = found.flat();
      resolvedAt = Date.now();
      pending = undefined;
    })());
  }

  function isOwnAddress(address: string, port: number): boolean {
    const bare = normalizeAddress(address);
    const endpoints = [...fixed, ...resolved, ...listening.values()];
    return endpoints.some((own) => own.port === port && reaches(bare, own.address));
  }

  return {
    async check(url, resolveName = false) {
      await refresh();
      const port = defaultPort(url);
      const host = url.hostname.toLowerCase().replace(/\.$/, '');
      if (names.some((n) => n.port === port && n.name === host)) return OWN_ORIGIN_REASON;
      const bare = host.replace(/^\[|\]$/g, '');
      if (isIP(bare)) return isOwnAddress(bare, port) ? OWN_ORIGIN_REASON : undefined;
      if (!resolveName) return undefined;
      const addresses = await resolve(bare).catch(() => [] as LookupAddress[]);
      return addresses.some((a) => isOwnAddress(a.address, port)) ? OWN_ORIGIN_REASON : undefined;
    },
    isOwnAddress,
    guard(lookup, port) {
      return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
        lookup(
          hostname,
          { ...options, all: true } as never,
          ((err: Error | null, list: unknown) => {
            if (err) return callback(err, '', 4);
            const addresses = list as LookupAddress[];
            if (addresses.some((a) => isOwnAddress(a.address, port)))
              return callback(new OwnOriginError(), '', 4);
            if (options.all) return callback(null, addresses);
            const first = addresses[0];
            if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 4);
            callback(null, first.address, first.family);
          }) as never,
        );
      }) as unknown as LookupFunction;
    },
  };
}

const byConfig = new WeakMap<object, OwnOrigins>();
/** One instance per loaded config (its names' resolution cached across the process's users). */
export function ownOriginsOf(config: OwnOriginsSettings): OwnOrigins {
  let own = byConfig.get(config);
  if (!own) byConfig.set(config, (own = ownOrigins(config)));
  return own;
}
