// Verification of a connection string before it is saved (SERVICE-SPEC "External database
// connection"), in the spec's order: a standard URI; no restricted host (names, literals, every
// resolved address, every SRV target); then a 5-second server selection from this role and, at
// the same time, from the public role through its internal endpoint; all within about 9.5 s.
// Each failure is a 400 with one of the spec's messages and nothing stored.
import { badRequest, type ApiError } from '../../http/errors.js';
import { connectTarget, parseDatabaseUri } from '../../lib/mongodb-uri.js';
import type { HostResolver } from '../../lib/restricted-hosts.js';
import type { ExternalTarget, ProbeResult } from '../../db/external-databases.js';
import { memberRule } from './resolver.js';

export const RESTRICTED_MESSAGE =
  'DB URI is pointing to a restricted host, internal network, or unsupported URI format.';
export const CONNECT_MESSAGE = 'Could not connect to the provided database URI.';
export const PUBLIC_INCOMPLETE_MESSAGE =
  'Public API verification could not be completed (network/timeout). Please try again later.';
export const accessDeniedMessage = (ips: string[], provider: string) =>
  `Access Denied: Please whitelist Server IPs [${ips.join(', ')}] in ${provider}.`;

/** The whole verification, both roles included ("about 9.5 seconds"). */
export const VERIFY_CAP_MS = 9500;
/** Server selection of each check. */
export const SELECTION_TIMEOUT_MS = 5000;

/** The outcome of the checks one role can run by itself. */
export type CheckOutcome = { ok: true } | { ok: false; kind: CheckFailure; reason: string };
export type CheckFailure = 'format' | 'restricted' | 'auth' | 'network' | 'other';

export interface CheckDeps {
  hosts: HostResolver;
  allowPrivate: boolean;
  probe(target: ExternalTarget, timeoutMs: number): Promise<ProbeResult>;
}

/** Steps 1 and 2: the URI and its hosts, without connecting. */
export async function checkUri(deps: CheckDeps, uri: string) {
  const parsed = parseDatabaseUri(uri);
  if (!parsed.ok) return { ok: false as const, kind: 'format' as const, reason: parsed.reason };
  const target = await connectTarget(parsed.value, deps.hosts, deps.allowPrivate);
  if (!target.ok) return { ok: false as const, kind: 'restricted' as const, reason: target.reason };
  return { ok: true as const, parsed: parsed.value, target: target.value };
}

/** Everything one role checks: the URI, its hosts, and a connection from this process. */
export async function checkFromHere(deps: CheckDeps, uri: string): Promise<CheckOutcome> {
  const checked = await checkUri(deps, uri);
  if (!checked.ok) return checked;
  const lookup = deps.allowPrivate ? deps.hosts.lookup : deps.hosts.guardedLookup;
  return deps.probe(
    { uri: checked.target.uri, database: checked.target.database, lookup, members: memberRule(deps) },
    SELECTION_TIMEOUT_MS,
  );
}

/** What the public role answered, or undefined when it could not be asked or did not answer in time. */
export type RemoteCheck = (uri: string, deadlineMs: number) => Promise<CheckOutcome | undefined>;

/** The cluster provider named in the access-denied message, from the host names. */
export function providerOf(hosts: string[]): string {
  const all = hosts.join(',').toLowerCase();
  if (/\.mongodb\.net(:|,|$)/.test(all)) return 'MongoDB Atlas';
  if (/\.docdb(-elastic)?\.amazonaws\.com/.test(all)) return 'Amazon DocumentDB';
  if (/\.cosmos\.azure\.com|\.documents\.azure\.com/.test(all)) return 'Azure Cosmos DB';
  return "your database provider's network access list";
}

const failure = (message: string, code: string, reason: string): ApiError =>
  badRequest(message, [{ path: 'body.uri', message: reason }], code);

export interface VerifyDeps extends CheckDeps {
  remote: RemoteCheck;
  egressIps: { dashboard: string[]; public: string[] };
  now?: () => number;
}

/**
 * Runs the verification; resolves with what to store, or throws the 400 to answer. The local
 * probe and the public role's check run in parallel, so that two 5-second selections fit the cap.
 */
export async function verifyConnection(deps: VerifyDeps, uri: string) {
  const now = deps.now ?? Date.now;
  const deadline = now() + VERIFY_CAP_MS;
  const remaining = () => Math.max(0, deadline - now());
  let timer: NodeJS.Timeout | undefined;
  const capped = <T>(work: Promise<T>, late: T) =>
    Promise.race([work, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(late), remaining())))]);
  // Name resolution counts against the cap too: a resolver that never answers is "could not connect".
  const checked = await capped(checkUri(deps, uri), undefined);
  clearTimeout(timer);
  if (!checked) throw failure(CONNECT_MESSAGE, 'DATABASE_UNREACHABLE', 'name resolution timed out');
  if (!checked.ok) throw failure(RESTRICTED_MESSAGE, 'INVALID_DATABASE_URI', checked.reason);
  const hosts = checked.target.hosts;
  const lookup = deps.allowPrivate ? deps.hosts.lookup : deps.hosts.guardedLookup;
  const { uri: seeds, database } = checked.target;
  const target = { uri: seeds, database, lookup, members: memberRule(deps) };

  const remote = deps.remote(uri, remaining()).catch(() => undefined);
  const local = await capped(deps.probe(target, Math.min(SELECTION_TIMEOUT_MS, remaining())), {
    ok: false,
    kind: 'network',
    reason: 'timed out',
  } as ProbeResult);
  clearTimeout(timer);
  if (!local.ok && local.kind === 'restricted') {
    throw failure(RESTRICTED_MESSAGE, 'RESTRICTED_HOST', local.reason);
  }
  if (!local.ok && local.kind !== 'network')
    throw failure(CONNECT_MESSAGE, 'DATABASE_UNREACHABLE', local.reason);
  const publicCheck = await capped(remote, undefined);
  clearTimeout(timer);
  const denied = () => {
    const ips = [...deps.egressIps.dashboard, ...deps.egressIps.public];
    return failure(
      accessDeniedMessage(
        ips.length ? ips : ['not listed: the operator sets DASHBOARD_EGRESS_IPS and PUBLIC_EGRESS_IPS'],
        providerOf(hosts),
      ),
      'DATABASE_ACCESS_DENIED',
      local.ok ? 'the public API service could not connect' : 'the dashboard service could not connect',
    );
  };
  if (!local.ok) {
    // Reached from the public role but not from here: the cluster's allowlist lacks this role's IP.
    if (publicCheck?.ok) throw denied();
    throw failure(CONNECT_MESSAGE, 'DATABASE_UNREACHABLE', local.reason);
  }
  if (!publicCheck) {
    throw failure(
      PUBLIC_INCOMPLETE_MESSAGE,
      'PUBLIC_VERIFICATION_INCOMPLETE',
      'no answer from the public API service',
    );
  }
  if (!publicCheck.ok) {
    if (publicCheck.kind === 'network') throw denied();
    if (publicCheck.kind === 'format' || publicCheck.kind === 'restricted') {
      throw failure(RESTRICTED_MESSAGE, 'RESTRICTED_HOST', `public API service: ${publicCheck.reason}`);
    }
    throw failure(CONNECT_MESSAGE, 'DATABASE_UNREACHABLE', `public API service: ${publicCheck.reason}`);
  }
  return { host: checked.parsed.display, database: checked.parsed.database ?? null, target };
}
