// The expiry sweep's side of the platform database: deletes records whose `expiresAt` has passed
// (dashboard sessions, end-user refresh-token families, one-time codes, OAuth grants, AI chat
// sessions, finished webhook deliveries, project and developer invitations, unconfirmed developer
// sign-ups, the heartbeats of processes long gone).
// Their TTL indexes do the same on MongoDB within about a minute; the sweep covers engines without
// TTL monitors and makes the deletion time deterministic.
import type { Db } from 'mongodb';

export const EXPIRING_COLLECTIONS = [
  'sessions',
  'user_refresh_tokens',
  'user_auth_codes',
  'user_oauth_grants',
  'ai_sessions',
  'webhook_deliveries',
  'project_invitations',
  'developer_signups',
  'developer_invitations',
  'instances',
  'function_invocations',
];

export function expiredRecordsRepo(db: Db) {
  return {
    /** Deletes every expired record; returns the count per collection. */
    async deleteExpired(now: Date): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      for (const name of EXPIRING_COLLECTIONS) {
        counts[name] = (await db.collection(name).deleteMany({ expiresAt: { $lte: now } })).deletedCount;
      }
      return counts;
    },
  };
}
