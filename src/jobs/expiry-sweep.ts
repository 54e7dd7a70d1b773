// Worker job: deletes expired dashboard sessions, refresh-token families, one-time codes, OAuth
// grants and finished webhook deliveries past their retention (see db/expired-records.ts; the TTL
// indexes do the same where the engine has them), and request log entries past their age.
import type { Deps } from '../deps.js';
import { expiredRecordsRepo } from '../db/expired-records.js';

export function expirySweep(deps: Pick<Deps, 'log' | 'db'>, requestLogSweep?: (at: Date) => Promise<number>) {
  const repo = expiredRecordsRepo(deps.db.platform);
  return async function sweep(at: Date): Promise<Record<string, number>> {
    const deleted: Record<string, number> = await repo.deleteExpired(at);
    if (requestLogSweep) deleted.requestLog = await requestLogSweep(at);
    if (Object.values(deleted).some(Boolean)) deps.log.info({ deleted }, 'expired records deleted');
    return deleted;
  };
}
