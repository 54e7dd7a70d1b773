// What a get by id, a list and a create cost the database, as commands (issue 47): the driver's
// command monitoring records every command the process sends while each kind of request runs,
// and each must be one bench/COMMANDS.json names: the request's own, exactly as many per request
// as listed, and the platform's background ones (request log, slow queries, quota leases, usage),
// within their average per request. A new command on the request path fails here until the list
// (and bench/COMMANDS.md) says why it is worth it.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { CommandStartedEvent } from 'mongodb';
import { repoPath } from '../../src/lib/paths.js';
import { testEnv } from '../helpers/env.js';
import { startDataSuite, type DataSuite } from './data-helpers.js';

interface Documented {
  operations: Record<string, { perRequest: Record<string, number> }>;
  background: Record<string, number>;
  /** Timed background writes: also this many per second of the run, whatever the requests. */
  perSecond: Record<string, number>;
}
const documented = JSON.parse(readFileSync(repoPath('bench/COMMANDS.json'), 'utf8')) as Documented;
const COLLECTION = 'items';
const REQUESTS = 100;
/** Timed background work (a request-log flush, a lease's give-back) may fall on either side. */
const SLACK = 3;

/** `find items`: the command and the collection it names, as the documented list writes them. */
const nameOf = (event: CommandStartedEvent) => {
  const target = event.command[event.commandName] as unknown;
  const collection = typeof target === 'string' ? target : undefined;
  return collection === undefined ? event.commandName : `${event.commandName} ${collection}`;
};
const documentedName = (name: string) => name.replace('{collection}', COLLECTION);

/** Runs `count` tasks, `concurrency` at a time. */
async function burst(count: number, concurrency: number, task: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

describe('Database commands per request (bench/COMMANDS.json)', function () {
  this.timeout(120_000);
  let s: DataSuite;
  let ids: string[];
  let seen: string[] = [];
  const record = (event: CommandStartedEvent) => {
    // The driver's own handshakes and heartbeats are not the requests'.
    if (!['hello', 'ismaster', 'isMaster', 'ping', 'endSessions'].includes(event.commandName))
      seen.push(nameOf(event));
  };

  before(async () => {
    s = await startDataSuite('request_commands', {
      // The driver reports every command to the process (commandStarted).
      MONGODB_URI: `${testEnv.MONGODB_URI}${testEnv.MONGODB_URI!.includes('?') ? '&' : '?'}monitorCommands=true`,
      RATE_LIMIT_IP_PER_MINUTE: '0',
      // Every list is a slow query: its record is background work the list must not multiply.
      SLOW_QUERY_MS: '0',
    });
    await s.app.services.repos.projects.setLimits(s.fx.project.id, { requestsPerMinute: 1e9 });
    await s.collection({
      name: COLLECTION,
      mode: 'schema',
      fields: [
        { name: 'name', type: 'String', required: true },
        { name: 'price', type: 'Number' },
      ],
    });
    ids = [];
    // Also the warm-up of the creates: the quota lease learns the project's write rate.
    await burst(60, 4, async (i) => {
      const res = await s.secret.post(`/api/data/${COLLECTION}`, { name: `seed-${i}`, price: i % 20 });
      expect(res.status, res.text).to.equal(201);
      ids.push(res.body.data._id);
    });
    s.app.deps.db.client.on('commandStarted', record);
  });
  after(async () => {
    s.app.deps.db.client.off('commandStarted', record);
    await s.close();
  });

  /** Sends the requests and checks every command sent meanwhile against the documented list. */
  async function check(
    op: string,
    concurrency: number,
    send: (i: number) => Promise<number>,
    expected: number,
  ) {
    const statuses: number[] = [];
    seen = [];
    const started = performance.now();
    await burst(REQUESTS, concurrency, async (i) => void statuses.push(await send(i)));
    const seconds = Math.ceil((performance.now() - started) / 1000);
    const counts = new Map<string, number>();
    for (const name of seen) counts.set(name, (counts.get(name) ?? 0) + 1);
    expect(statuses.filter((status) => status === expected)).to.have.length(REQUESTS);
    const own = Object.entries(documented.operations[op]!.perRequest).map(
      ([name, n]) => [documentedName(name), n] as const,
    );
    const report = JSON.stringify(Object.fromEntries(counts));
    for (const [name, n] of own) expect(counts.get(name) ?? 0, `${name} in ${report}`).to.equal(n * REQUESTS);
    for (const [name, count] of counts) {
      if (own.some(([documentedOwn]) => documentedOwn === name)) continue;
      const limit = documented.background[name];
      expect(
        limit,
        `${op} sent "${name}" (${count} times for ${REQUESTS} requests), which bench/COMMANDS.json does not name`,
      ).to.not.equal(undefined);
      // A timed write follows the clock: on a busy machine the same requests take longer.
      const timed = (documented.perSecond[name] ?? 0) * seconds;
      expect(count, `${name} in ${report} over ${seconds} s`).to.be.at.most(
        Math.max(limit! * REQUESTS, timed) + SLACK,
      );
    }
  }

  it('a get by id sends one find and nothing else undocumented', async () => {
    await check(
      'get by id',
      1,
      async (i) => (await s.secret.get(`/api/data/${COLLECTION}/${ids[i % ids.length]}`)).status,
      200,
    );
  });

  it('a filtered, sorted list sends one find, also when every list is a slow query', async () => {
    const list = async (i: number) =>
      (
        await s.secret.get(
          `/api/data/${COLLECTION}?price_gte=${i % 10}&price_lt=${(i % 10) + 5}&sort=-price&limit=20`,
        )
      ).status;
    await check('list', 1, list, 200);
    await check('list', 8, list, 200);
  });

  it('a create sends one insert; the quota is charged per lease chunk, one after another and concurrently', async () => {
    const create = async (i: number) =>
      (await s.secret.post(`/api/data/${COLLECTION}`, { name: `new-${i}`, price: i % 20 })).status;
    // The lease serves writes one after another once the project writes 10 a second here: the
    // first ones of a burst are exact reservations, as an occasional write's (data-api.md).
    for (let i = 0; i < 20; i++) expect(await create(-1 - i)).to.equal(201);
    await check('create', 1, create, 201);
    await check('create', 8, create, 201);
    const used = (await s.app.services.repos.projects.usage(s.fx.project.id)).databaseUsed;
    expect(used).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
  });
});
