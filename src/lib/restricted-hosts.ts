// The restricted-host check (SSRF guard) for every outbound connection to an address a developer
// supplies: external storage endpoints, external databases, webhook targets. Loopback, private,
// link-local, unique-local, unspecified, metadata and other special-purpose addresses are refused,
// also behind IPv4-mapped/NAT64 IPv6 forms and behind DNS names (every resolved address counts).
// ALLOW_PRIVATE_HOSTS lets private and loopback addresses through, never link-local ones or the
// cloud metadata endpoints. The narrower 'loopback' allowance (WEBHOOK_ALLOW_LOOPBACK, on in the
// development profile) lets localhost and loopback addresses through and nothing else. Reasons stay generic: they reach developers (400 details, delivery
// logs), who must not learn internal names or addresses from them.
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup, promises as dnsPromises, type SrvRecord } from 'node:dns';
import { promisify } from 'node:util';

const lookupAll = promisify(dnsLookup);

/**
 * What may be reached besides public hosts: `false` nothing, `'loopback'` localhost and loopback
 * addresses (a receiver on the developer's laptop), `true` (ALLOW_PRIVATE_HOSTS) every private
 * range. Link-local and metadata addresses are refused under all three.
 */
export type HostAllowance = boolean | 'loopback';

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

/** What the 'loopback' allowance lets through (also behind IPv4-mapped forms). */
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Refused under every setting: link-local (cloud metadata lives there) and metadata endpoints. */
const alwaysBlocked = new BlockList();
alwaysBlocked.addSubnet('169.254.0.0', 16, 'ipv4'); // AWS, GCP, Azure, DigitalOcean metadata
alwaysBlocked.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
alwaysBlocked.addAddress('192.0.0.192', 'ipv4'); // Oracle Cloud metadata
alwaysBlocked.addSubnet('fe80::', 10, 'ipv6'); // link-local
alwaysBlocked.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6

const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);
const RESTRICTED_NAMES = new Set(['localhost', ...METADATA_NAMES]);

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

/**
 * True for an IP address (v4 or v6, without brackets) that must not be connected to; with
 * `allowPrivate` (ALLOW_PRIVATE_HOSTS) only the link-local and metadata addresses are, with
 * 'loopback' every restricted address but loopback ones.
 */
export function isRestrictedAddress(address: string, allowPrivate: HostAllowance = false): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  if (allowPrivate === 'loopback' && inList(loopback, bare, family)) return false;
  return inList(allowPrivate === true ? alwaysBlocked : blocked, bare, family);
}

/** Whether an address (family 4 or 6) is in a list, an IPv4 address embedded in IPv6 as itself. */
function inList(list: BlockList, bare: string, family: number): boolean {
  if (family === 4) return list.check(bare, 'ipv4');
  const v4 = embeddedIpv4(bare);
  if (v4 !== undefined) return isIP(v4) !== 4 || list.check(v4, 'ipv4');
  return list.check(bare, 'ipv6');
}

/**
 * The dotted IPv4 address meant by a legacy numeric host (`2130706433`, `0177.0.0.1`, `0x7f.1`,
 * `127.1`): inet_aton, which resolvers and connect() apply, reads these as addresses. Undefined
 * for a canonical dotted quad and for anything that is not such a form.
 */
export function legacyIpv4(host: string): string | undefined {
  const parts = host.split('.');
  if (parts.length > 4 || !parts.every((p) => /^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/i.test(p)))
    return undefined;
  const values = parts.map((p) =>
    /^0x/i.test(p) ? parseInt(p.slice(2) || '0', 16) : /^0./.test(p) ? parseInt(p, 8) : Number(p),
  );
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return undefined;
  let value = last;
  values.forEach((v, i) => (value += v * 256 ** (3 - i)));
  const dotted = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
  return dotted === host ? undefined : dotted;
}

const isLocalhostName = (name: string) => name === 'localhost' || name.endsWith('.localhost');

/**
 * True for `localhost`, `*.localhost` and loopback address literals (127.0.0.0/8, ::1, mapped
 * forms): the targets the 'loopback' allowance admits, also over plain http.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (isLocalhostName(host)) return true;
  const family = isIP(host);
  return family !== 0 && inList(loopback, host, family);
}

/** True for a host name refused without resolving it (localhost, metadata service names). */
export function isRestrictedName(hostname: string, allowPrivate: HostAllowance = false): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (allowPrivate === true) return METADATA_NAMES.has(name);
  if (allowPrivate === 'loopback' && isLocalhostName(name)) return false;
  return RESTRICTED_NAMES.has(name) || name.endsWith('.localhost') || name.endsWith('.internal');
}

export type HostCheck = { ok: true } | { ok: false; reason: string };

/**
 * The one reason given for a refused host: never the name or the address it resolved to, and the
 * same for a name that does not resolve. Two answers would tell a prober which internal names
 * exist (they resolve, to a restricted address) and which do not.
 */
export const NOT_ALLOWED_REASON =
  'The target is a restricted host: it must resolve to public addresses only (private, internal and reserved addresses are not allowed).';
const NOT_ALLOWED = { ok: false, reason: NOT_ALLOWED_REASON } as const;
const DOES_NOT_RESOLVE = NOT_ALLOWED;

export type ResolveAll = (host: string) => Promise<{ address: string }[]>;
const resolveAll: ResolveAll = (host) => lookupAll(host, { all: true, verbatim: true });

/**
 * The checks that need no resolution: restricted names, restricted or legacy-numeric address
 * literals. `ok: true, resolve: true` means the name must still be resolved and its addresses checked.
 */
export function checkHostText(
  hostname: string,
  allowPrivate: HostAllowance = false,
): HostCheck & { resolve?: boolean } {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (!host) return { ok: false, reason: 'empty host' };
  if (isIP(host)) return isRestrictedAddress(host, allowPrivate) ? NOT_ALLOWED : { ok: true };
  if (isRestrictedName(host, allowPrivate)) return NOT_ALLOWED;
  const numeric = legacyIpv4(host);
  // Some of these forms reach an address that the text hides; none has a legitimate use.
  if (numeric) return { ok: false, reason: 'the host must be a name or a dotted-quad address' };
  return { ok: true, resolve: true };
}

/**
 * Checks a host name or IP literal: restricted names and addresses are refused, and a name is
 * resolved (all records) and refused when any address is restricted or when it does not resolve.
 * With `allowPrivate` (operator setting ALLOW_PRIVATE_HOSTS) only link-local and metadata
 * addresses are refused, and a name that does not resolve passes (the connection's lookup decides);
 * so it does under 'loopback' (a laptop without DNS), where no internal name is worth hiding.
 */
export async function checkHost(
  hostname: string,
  allowPrivate: HostAllowance,
  resolve: ResolveAll = resolveAll,
): Promise<HostCheck> {
  const text = checkHostText(hostname, allowPrivate);
  if (!text.ok || !text.resolve) return text.ok ? { ok: true } : text;
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch {
    return allowPrivate !== false ? { ok: true } : DOES_NOT_RESOLVE;
  }
  if (addresses.some((a) => isRestrictedAddress(a.address, allowPrivate))) return NOT_ALLOWED;
  if (addresses.length === 0 && allowPrivate === false) return DOES_NOT_RESOLVE;
  return { ok: true };
}

/** Resolver errors that mean "no such name" (or no answer for it), as getaddrinfo reports them. */
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ENODATA', 'ESERVFAIL', 'EAI_NONAME']);

export class RestrictedHostError extends Error {
  readonly code = 'ERESTRICTEDHOST';
}

/**
 * A `lookup` for http(s) agents and sockets that refuses restricted addresses at connection time,
 * so a DNS record changed after the settings were saved (DNS rebinding) cannot reach the internal
 * network. IP literals never reach a lookup: check them with `checkHost` first.
 */
export const guardedLookup: LookupFunction = createGuardedLookup(dnsLookup);
/** The same under ALLOW_PRIVATE_HOSTS: refuses link-local and metadata addresses only. */
export const metadataGuardedLookup: LookupFunction = createGuardedLookup(dnsLookup, true);
/** The same under the 'loopback' allowance: loopback addresses pass, other restricted ones do not. */
export const loopbackGuardedLookup: LookupFunction = createGuardedLookup(dnsLookup, 'loopback');
export const guardedLookupFor = (allowPrivate: HostAllowance) =>
  allowPrivate === true
    ? metadataGuardedLookup
    : allowPrivate === 'loopback'
      ? loopbackGuardedLookup
      : guardedLookup;

/** guardedLookup over another resolver (tests), or with ALLOW_PRIVATE_HOSTS's narrower rule. */
export function createGuardedLookup(
  resolver: typeof dnsLookup,
  allowPrivate: HostAllowance = false,
): LookupFunction {
  return (hostname, options, callback) => {
    if (isRestrictedName(hostname, allowPrivate)) {
      callback(new RestrictedHostError(NOT_ALLOWED_REASON), '', 4);
      return;
    }
    resolver(hostname, { ...options, all: true }, (err, addresses) => {
      // A name that does not resolve gets the refusal of a restricted one (see NOT_ALLOWED_REASON);
      // under ALLOW_PRIVATE_HOSTS internal names are allowed anyway, and the real error helps.
      if (err && allowPrivate === false && UNRESOLVED.has(err.code ?? '')) {
        return callback(new RestrictedHostError(NOT_ALLOWED_REASON), '', 4);
      }
      if (err) return callback(err, '', 4);
      const list = addresses as { address: string; family: number }[];
      if (list.some((a) => isRestrictedAddress(a.address, allowPrivate))) {
        return callback(new RestrictedHostError(NOT_ALLOWED_REASON), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new RestrictedHostError(DOES_NOT_RESOLVE.reason), '', 4);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Name resolution for connections to hosts a developer supplied. Without `servers` it is the
 * system's (getaddrinfo, /etc/hosts); with `servers` (operator setting DNS_SERVERS, e.g. a
 * resolver that sees what the database provider's network sees, or a test server) every query
 * goes to those servers only, per instance, never changing the process-wide resolver.
 */
export interface HostResolver {
  resolveAll: ResolveAll;
  /** For sockets: every new connection resolves again and refuses restricted addresses. */
  guardedLookup: LookupFunction;
  /** For sockets when private hosts are allowed: the same resolver, refusing metadata addresses only. */
  lookup: LookupFunction;
  resolveSrv(name: string): Promise<SrvRecord[]>;
  resolveTxt(name: string): Promise<string[][]>;
}

type AllLookup = typeof dnsLookup;

/** A dns.lookup-shaped function over `resolveAll` (every answer, families from the addresses). */
function lookupOver(resolve: ResolveAll): AllLookup {
  return ((hostname: string, _options: unknown, callback: (err: Error | null, list?: unknown) => void) => {
    resolve(hostname).then(
      (list) =>
        callback(
          null,
          list.map((a) => ({ address: a.address, family: isIP(a.address) })),
        ),
      (err: Error) => callback(err),
    );
  }) as unknown as AllLookup;
}

export function hostResolver(servers: readonly string[] = []): HostResolver {
  if (servers.length === 0) {
    return {
      resolveAll,
      guardedLookup,
      lookup: metadataGuardedLookup,
      resolveSrv: (name) => dnsPromises.resolveSrv(name),
      resolveTxt: (name) => dnsPromises.resolveTxt(name),
    };
  }
  const resolver = new dnsPromises.Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers([...servers]);
  const both: ResolveAll = async (host) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const found = [v4, v6].flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    if (found.length === 0 && v4.status === 'rejected') throw v4.reason;
    return found.map((address) => ({ address }));
  };
  const viaServers = lookupOver(both);
  return {
    resolveAll: both,
    guardedLookup: createGuardedLookup(viaServers),
    lookup: createGuardedLookup(viaServers, true),
    resolveSrv: (name) => resolver.resolveSrv(name),
    resolveTxt: (name) => resolver.resolveTxt(name),
  };
}
