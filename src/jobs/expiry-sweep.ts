// Worker job: deletes expired dashboard sessions, refresh-token families, one-time codes, OAuth
// grants and finished webhook deliveries past their retention (see db/expired-records.ts; the TTL
// indexes do the same where the engine has them).
import type { Deps } from '../deps.js';
import { expiredRecordsRepo } from '../db/expired-records.js';

export function expirySweep(deps: Pick<Deps, 'log' | 'db'>) {
  const repo = expiredRecordsRepo(deps.db.platform);
  return async function sweep(at: Date): Promise<Record<string, number>> {
    const deleted = await repo.deleteExpired(at);
    if (Object.values(deleted).some(Boolean)) deps.log.info({ deleted }, 'expired records deleted');
    return deleted;
  };
}
