// The restricted-host check (SSRF guard) for every outbound connection to an address a developer
// supplies: external storage endpoints, external databases, webhook targets. Loopback, private,
// link-local, unique-local, unspecified, metadata and other special-purpose addresses are refused,
// also behind IPv4-mapped/NAT64 IPv6 forms and behind DNS names (every resolved address counts).
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import { promisify } from 'node:util';

const lookupAll = promisify(dnsLookup);

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

const RESTRICTED_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'instance-data']);

/** The IPv4 address embedded in an IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::) or 6to4 address. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:(?:0:)?|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:(?:0:)?|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  const parts = hex ?? sixToFour;
  if (!parts) return undefined;
  const high = parseInt(parts[1]!, 16);
  const low = parseInt(parts[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True for an IP address (v4 or v6, without brackets) that must never be connected to. */
export function isRestrictedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  if (family === 4) return blocked.check(bare, 'ipv4');
  const v4 = embeddedIpv4(bare);
  if (v4 !== undefined) return isIP(v4) !== 4 || blocked.check(v4, 'ipv4');
  return blocked.check(bare, 'ipv6');
}

/** True for a host name refused without resolving it (localhost, metadata service names). */
export function isRestrictedName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return RESTRICTED_NAMES.has(name) || name.endsWith('.localhost') || name.endsWith('.internal');
}

export type HostCheck = { ok: true } | { ok: false; reason: string };

/**
 * Checks a host name or IP literal: restricted names and addresses are refused, and a name is
 * resolved (all records) and refused when any address is restricted or when it does not resolve.
 * With `allowPrivate` (operator setting ALLOW_PRIVATE_HOSTS) everything passes.
 */
export type ResolveAll = (host: string) => Promise<{ address: string }[]>;
const resolveAll: ResolveAll = (host) => lookupAll(host, { all: true, verbatim: true });

export async function checkHost(
  hostname: string,
  allowPrivate: boolean,
  resolve: ResolveAll = resolveAll,
): Promise<HostCheck> {
  if (allowPrivate) return { ok: true };
  const host = hostname.replace(/^\[|\]$/g, '');
  if (!host) return { ok: false, reason: 'empty host' };
  if (isIP(host)) {
    return isRestrictedAddress(host) ? { ok: false, reason: `restricted address ${host}` } : { ok: true };
  }
  if (isRestrictedName(host)) return { ok: false, reason: `restricted host name ${host}` };
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch {
    return { ok: false, reason: `host ${host} does not resolve` };
  }
  const bad = addresses.find((a) => isRestrictedAddress(a.address));
  if (bad) return { ok: false, reason: `host ${host} resolves to restricted address ${bad.address}` };
  if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve` };
  return { ok: true };
}

export class RestrictedHostError extends Error {
  readonly code = 'ERESTRICTEDHOST';
}

/**
 * A `lookup` for http(s) agents and sockets that refuses restricted addresses at connection time,
 * so a DNS record changed after the settings were saved (DNS rebinding) cannot reach the internal
 * network. IP literals never reach a lookup: check them with `checkHost` first.
 */
export const guardedLookup: LookupFunction = createGuardedLookup(dnsLookup);

/** guardedLookup over another resolver (tests). */
export function createGuardedLookup(resolver: typeof dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    if (isRestrictedName(hostname)) {
      callback(new RestrictedHostError(`restricted host name ${hostname}`), '', 4);
      return;
    }
    resolver(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as { address: string; family: number }[];
      const bad = list.find((a) => isRestrictedAddress(a.address));
      if (bad) {
        return callback(
          new RestrictedHostError(`host ${hostname} resolves to restricted address ${bad.address}`),
          '',
          4,
        );
      }
      if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new RestrictedHostError(`host ${hostname} does not resolve`), '', 4);
      callback(null, first.address, first.family);
    });
  };
}
