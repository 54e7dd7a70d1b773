// The refused-credentials notes are written from the CORS path: at most once per project, origin
// and interval, whatever the rate of the page's requests.
import { expect } from 'chai';
import { NOTICE_INTERVAL_MS, NOTICES_KEPT, originNotices } from '../../src/services/origin-notices.js';
import { createLogger } from '../../src/lib/logger.js';
import type { Project } from '../../src/services/types.js';

describe('origin notices', () => {
  it('writes one origin of one project at most once per interval', () => {
    let clock = 1_000_000;
    const writes: string[] = [];
    const notices = originNotices({
      note: async (projectId, origin, at, keep) => {
        expect(keep).to.equal(NOTICES_KEPT);
        writes.push(`${projectId} ${origin} ${at.getTime()}`);
      },
      log: createLogger('silent'),
      now: () => clock,
    });
    const a = { id: 'a' } as Project;
    const b = { id: 'b' } as Project;
    for (let i = 0; i < 1000; i++) notices.credentialsRefused(a, 'https://x.example');
    notices.credentialsRefused(a, 'https://y.example');
    notices.credentialsRefused(b, 'https://x.example');
    clock += NOTICE_INTERVAL_MS - 1;
    notices.credentialsRefused(a, 'https://x.example');
    clock += 1;
    notices.credentialsRefused(a, 'https://x.example');
    expect(writes).to.deep.equal([
      'a https://x.example 1000000',
      'a https://y.example 1000000',
      'b https://x.example 1000000',
      `a https://x.example ${1_000_000 + NOTICE_INTERVAL_MS}`,
    ]);
  });
});
