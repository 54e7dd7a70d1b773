// Replica-set discovery under the restricted-host rule. The driver connects to every member that a
// server reports, and a member given as an IP literal never reaches the guarded `lookup`
// (net.connect skips it), so: before a client with discovery opens, each seed is asked over a
// direct connection which members it reports, and every one must pass the check; while a client
// is open, a member reported later that fails the check closes it at once. (The driver offers no
// socket hook of its own: see socket-guard.ts; `directConnection` for every pool would lose failover.)
import { MongoClient, type MongoClientOptions, type ServerDescription } from 'mongodb';
import { refuseForThisRun } from '../lib/socket-guard.js';

export interface MemberRule {
  /** The full check of a reported `host:port` (names resolved). */
  check(member: string): Promise<boolean>;
  /** The check without resolving, inside the driver's event: names pass (their lookup is guarded). */
  checkNow(member: string): boolean;
}

/** Every address a description makes the driver connect to. */
const reported = (d: ServerDescription) => [
  ...d.hosts,
  ...d.passives,
  ...d.arbiters,
  ...(d.primary ? [d.primary] : []),
];

/** The host of `host:port` or `[v6]:port`. */
const hostOf = (member: string) => member.replace(/:\d+$/, '');

/** The URI with one seed only, connected to directly (no discovery). */
function directUri(uri: string, seed: string): string {
  const match = /^mongodb:\/\/([^@/]*@)?([^/?]*)(\/[^?]*)?(?:\?(.*))?$/.exec(uri);
  if (!match) throw new Error('not a mongodb:// URI with a seed list');
  const params = new URLSearchParams(match[4] ?? '');
  for (const key of [...params.keys()]) {
    if (/^(replicaset|directconnection)$/i.test(key)) params.delete(key);
  }
  params.set('directConnection', 'true');
  return `mongodb://${match[1] ?? ''}${seed}${match[3] || '/'}?${params}`;
}

const seedsOf = (uri: string) => /^mongodb:\/\/(?:[^@/]*@)?([^/?]*)/.exec(uri)?.[1]?.split(',') ?? [];

/** What one seed reports, or why it could not be asked. */
async function membersOf(
  uri: string,
  seed: string,
  options: MongoClientOptions,
): Promise<{ members: string[]; error?: unknown }> {
  const client = new MongoClient(directUri(uri, seed), { ...options, maxPoolSize: 1 });
  const members: string[] = [];
  client.on('serverDescriptionChanged', (event) => members.push(...reported(event.newDescription)));
  try {
    await client.connect();
    return { members };
  } catch (error) {
    return { members, error };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * Asks every seed of `uri` which members it reports: `pass` is false when one fails the rule; `error`
 * is the connection error when no seed could be asked (a load balancer reports none: not asked).
 */
export async function checkReportedMembers(
  uri: string,
  options: MongoClientOptions,
  rule: MemberRule,
): Promise<{ pass: boolean; error?: unknown }> {
  if (/[?&]loadBalanced=true(&|$)/i.test(uri)) return { pass: true };
  const reports = await Promise.all(seedsOf(uri).map((seed) => membersOf(uri, seed, options)));
  const members = [...new Set(reports.flatMap((r) => r.members).map((m) => m.toLowerCase()))];
  const checks = await Promise.all(members.map((member) => rule.check(member)));
  const unreachable = reports.every((r) => r.error !== undefined);
  return { pass: checks.every(Boolean), error: unreachable ? reports[0]?.error : undefined };
}

/**
 * Calls `refused` (once) when a server of `client` reports a member that fails the rule; it
 * closes the client. The event comes just before the driver opens the new member's monitoring
 * socket in the same run, which a listener cannot stop: the socket guard refuses that socket's
 * connection to the member (socket-guard.ts), so not one packet reaches it.
 */
export function watchMembers(client: MongoClient, rule: MemberRule, refused: () => void): void {
  const approved = new Set<string>();
  let done = false;
  client.on('serverDescriptionChanged', (event) => {
    if (done) return;
    for (const member of reported(event.newDescription)) {
      const key = member.toLowerCase();
      if (approved.has(key)) continue;
      if (!rule.checkNow(key)) {
        done = true;
        refuseForThisRun([hostOf(key)]);
        refused();
        return;
      }
      approved.add(key);
    }
  });
}
