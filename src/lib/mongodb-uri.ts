// A developer's own MongoDB connection string (SERVICE-SPEC "External database connection"):
// parsed strictly, limited to the options a hosted service can honour safely, and turned into the
// hosts to check and the seed list to connect to. `mongodb+srv` names are expanded here, through
// the configured resolver, so that every host of the SRV records passes the restricted-host check
// before anything connects (DECISIONS §7).
import ConnectionString from 'mongodb-connection-string-url';
import { checkHost, checkHostText, type HostResolver } from './restricted-hosts.js';

export type UriCheck<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface DatabaseUri {
  srv: boolean;
  /** `host:port` pairs (IPv6 in brackets); for `mongodb+srv`, the one service name. */
  hosts: string[];
  /** The database named in the path; undefined: the driver's default (`test`). */
  database: string | undefined;
  /** What may be shown: the hosts, without credentials or options. */
  display: string;
  /** Values of options that affect resolution (`srvServiceName`, `tls`). */
  options: Map<string, string>;
  source: ConnectionString;
}

const MAX_LENGTH = 4096;
/**
 * Options accepted in the URI. Left out on purpose: file paths read on the server (tlsCAFile,
 * tlsCertificateKeyFile, ...), proxies (proxyHost would connect to any address), and
 * authentication that uses the server's own identity (MONGODB-AWS, MONGODB-OIDC, GSSAPI, X509).
 */
const ALLOWED_OPTIONS = new Set(
  [
    'appName',
    'authMechanism',
    'authSource',
    'compressors',
    'connectTimeoutMS',
    'directConnection',
    'heartbeatFrequencyMS',
    'journal',
    'loadBalanced',
    'localThresholdMS',
    'maxIdleTimeMS',
    'maxStalenessSeconds',
    'readConcernLevel',
    'readPreference',
    'readPreferenceTags',
    'replicaSet',
    'retryReads',
    'retryWrites',
    'serverSelectionTimeoutMS',
    'socketTimeoutMS',
    'srvServiceName',
    'ssl',
    'tls',
    'tlsAllowInvalidCertificates',
    'tlsAllowInvalidHostnames',
    'tlsInsecure',
    'w',
    'wtimeoutMS',
    'zlibCompressionLevel',
  ].map((o) => o.toLowerCase()),
);
const AUTH_MECHANISMS = new Set(['DEFAULT', 'SCRAM-SHA-1', 'SCRAM-SHA-256', 'PLAIN']);
/** Options a TXT record of a `mongodb+srv` name may set (as the driver allows). */
const TXT_OPTIONS = new Set(['authsource', 'replicaset', 'loadbalanced']);
/** A name or IPv4 literal, or an IPv6 literal in brackets, then an optional port. */
const HOST_ENTRY = /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;
const DATABASE_NAME = /^[^/\\. "$*<>:|?]{1,63}$/;

const fail = (reason: string) => ({ ok: false as const, reason });

/** Step 1 of the verification: a standard `mongodb://` or `mongodb+srv://` URI we can use. */
export function parseDatabaseUri(uri: string): UriCheck<DatabaseUri> {
  if (uri.length > MAX_LENGTH) return fail(`longer than ${MAX_LENGTH} characters`);
  if (!/^mongodb(\+srv)?:\/\//.test(uri)) return fail('must start with mongodb:// or mongodb+srv://');
  let source: ConnectionString;
  try {
    source = new ConnectionString(uri);
  } catch (err) {
    return fail((err as Error).message.replaceAll(uri, '<uri>'));
  }
  const options = new Map<string, string>();
  for (const [name, value] of source.searchParams) {
    const key = name.toLowerCase();
    if (!ALLOWED_OPTIONS.has(key)) return fail(`option ${name} is not supported`);
    if (key === 'authmechanism' && !AUTH_MECHANISMS.has(value.toUpperCase())) {
      return fail(`authMechanism ${value} is not supported`);
    }
    options.set(key, value);
  }
  const hosts = source.hosts;
  for (const host of hosts) {
    if (host.includes('/') || host.includes('%') || host.endsWith('.sock')) {
      return fail('Unix domain sockets are not supported');
    }
    const match = HOST_ENTRY.exec(host);
    const port = Number(match?.[1] ?? 27017);
    if (!match || port < 1 || port > 65535)
      return fail(`host ${host} is not a host name or address with an optional port`);
  }
  const path = decodeURIComponent(source.pathname.replace(/^\//, ''));
  if (path && !DATABASE_NAME.test(path)) return fail(`database name "${path}" is not valid`);
  return {
    ok: true,
    value: {
      srv: source.isSRV,
      hosts,
      database: path || undefined,
      display: hosts.join(','),
      options,
      source,
    },
  };
}

/** `host:port` split; IPv6 addresses keep no brackets. */
export function splitHost(entry: string): { host: string; port: number } {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? /^([^:]+)(?::(\d+))?$/.exec(entry);
  return { host: match?.[1] ?? entry, port: Number(match?.[2] ?? 27017) };
}

/** The parent domain an SRV target must share (the driver's rule, so records cannot point elsewhere). */
const parentDomain = (name: string) => name.split('.').slice(1).join('.').toLowerCase();

export interface ConnectTarget {
  /** A plain `mongodb://` URI with the seed list: SRV records already resolved and checked. */
  uri: string;
  hosts: string[];
  database: string | undefined;
}

/**
 * Step 2 of the verification, and again before every new connection pool: resolves SRV and TXT
 * records, and refuses when any host (a literal, a name, each address a name resolves to, each SRV
 * target) is restricted. With `allowPrivate` only the resolution happens.
 */
export async function connectTarget(
  parsed: DatabaseUri,
  resolver: HostResolver,
  allowPrivate: boolean,
): Promise<UriCheck<ConnectTarget>> {
  let hosts = parsed.hosts;
  const params = new URLSearchParams(parsed.source.search);
  if (parsed.srv) {
    const name = splitHost(parsed.hosts[0]!).host;
    const service = parsed.options.get('srvservicename') ?? 'mongodb';
    // The service name itself needs no address; only its text is checked.
    const own = checkHostText(name, allowPrivate);
    if (!own.ok) return fail(own.reason);
    const [srv, txt] = await Promise.all([
      resolver.resolveSrv(`_${service}._tcp.${name}`).catch(() => []),
      resolver.resolveTxt(name).catch(() => [] as string[][]),
    ]);
    const records = srv;
    if (records.length === 0) return fail('the name has no SRV records');
    const parent = parentDomain(name);
    for (const record of records) {
      if (!record.name.toLowerCase().endsWith(`.${parent}`)) {
        return fail("an SRV target is outside the name's domain");
      }
    }
    hosts = records.map((r) => `${r.name.replace(/\.$/, '')}:${r.port}`);
    if (txt.length > 1) return fail('the name has more than one TXT record');
    for (const [key, value] of new URLSearchParams(txt[0]?.join('') ?? '')) {
      if (!TXT_OPTIONS.has(key.toLowerCase())) return fail(`TXT option ${key} is not allowed`);
      if (!params.has(key)) params.set(key, value);
    }
    for (const key of [...params.keys()]) if (key.toLowerCase() === 'srvservicename') params.delete(key);
    if (!parsed.options.has('tls') && !parsed.options.has('ssl')) params.set('tls', 'true');
  }
  const checks = await Promise.all(
    hosts.map((entry) => checkHost(splitHost(entry).host, allowPrivate, resolver.resolveAll)),
  );
  const refused = checks.find((check) => !check.ok);
  if (refused && !refused.ok) return fail(refused.reason);
  const { username, password, pathname } = parsed.source;
  const auth = username ? `${username}${password ? `:${password}` : ''}@` : '';
  const query = params.toString();
  return {
    ok: true,
    value: {
      uri: `mongodb://${auth}${hosts.join(',')}${pathname || '/'}${query ? `?${query}` : ''}`,
      hosts,
      database: parsed.database,
    },
  };
}
