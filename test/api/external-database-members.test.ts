// Replica-set discovery under the restricted-host rule: a deployment whose seed passes the check
// but which reports a member on a refused address (here the cloud metadata address, refused even
// with ALLOW_PRIVATE_HOSTS, which the test stack needs to reach loopback) is refused when saved,
// and an open pool whose server starts reporting one is closed before a single connection reaches
// that member (socket-guard.ts). The server is a fake that only says hello
// (test/helpers/fake-replica-set.ts): the member list is whatever the test sets.
import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { startFakeReplicaSet, type FakeReplicaSet } from '../helpers/fake-replica-set.js';
import { pause } from '../helpers/sse.js';
import { MESSAGES } from './external-database-shared.js';
import { externalPools, RefusedMemberError } from '../../src/db/external-databases.js';
import { hostResolver } from '../../src/lib/restricted-hosts.js';
import { memberRule } from '../../src/services/external-db/resolver.js';
import { guardSockets } from '../../src/lib/socket-guard.js';

describe('external database connection: reported replica-set members', function () {
  this.timeout(60_000);
  let rs: FakeReplicaSet;
  before(async () => {
    rs = await startFakeReplicaSet();
  });
  after(() => rs?.close());

  describe('when the setting is saved', () => {
    let apps: Awaited<ReturnType<typeof startTestApps>>;
    let fx: ProjectFixture;
    before(async () => {
      apps = await startTestApps('extdb_members', { ALLOW_PRIVATE_HOSTS: 'true' });
      fx = await createProjectFixture(apps.dashboard.services);
    });
    after(() => apps?.close());
    const put = () =>
      apps.dashboard.client
        .with({ cookie: fx.cookie })
        .put(`/api/projects/${fx.project.id}/database`, { uri: `mongodb://${rs.self}/shop` });

    for (const member of ['169.254.169.254:27017', '[fd00:ec2::254]:27017', 'metadata.google.internal:80']) {
      it(`refuses a seed that reports the member ${member}`, async () => {
        rs.members = ['203.0.113.50:27017', member];
        const res = await put();
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.message).to.equal(MESSAGES.restricted);
        expect(JSON.stringify(res.body)).not.to.include(member.replace(/:\d+$/, ''));
      });
    }

    it('accepts the same seed once it reports only allowed members', async () => {
      rs.members = [];
      const res = await put();
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });
  });

  describe('while a pool is open', () => {
    it('closes the pool when its server starts reporting a refused member, and refuses to reopen it', async () => {
      rs.members = [];
      const pools = externalPools({
        maxPools: 2,
        idleMs: 600_000,
        poolSize: 2,
        timeoutMs: 5000,
        operationTimeoutMs: 5000,
      });
      let refusedCalls = 0;
      const target = async () => ({
        uri: `mongodb://${rs.self}/?heartbeatFrequencyMS=500`,
        database: 'members',
        lookup: hostResolver().lookup,
        members: memberRule({ hosts: hostResolver(), allowPrivate: true }),
        onRefusedMember: () => (refusedCalls += 1),
      });
      try {
        const db = await pools.db('p1', 'v1', target);
        expect((await db.command({ ping: 1 })).ok).to.equal(1);
        expect(pools.size()).to.equal(1);

        rs.members = ['169.254.169.254:27017'];
        for (let i = 0; i < 40 && pools.size() > 0; i++) await pause(100);
        expect(pools.size()).to.equal(0);
        expect(refusedCalls).to.equal(1);
        let error: unknown;
        await pools.db('p1', 'v1', target).catch((err) => (error = err));
        expect(error).to.be.instanceOf(RefusedMemberError);
      } finally {
        await pools.closeAll();
      }
    });

    it('lets no connection reach a refused member reported later, not even the first', async () => {
      guardSockets(); // as createDeps does in every role
      let reached = 0;
      const member = net.createServer((socket) => {
        reached++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => member.listen(0, '127.0.0.2', resolve));
      const refusedMember = `127.0.0.2:${(member.address() as AddressInfo).port}`;
      // Loopback is allowed for the seed (the test stack's), refused for this one member.
      const rule = {
        check: async (m: string) => m !== refusedMember,
        checkNow: (m: string) => m !== refusedMember,
      };
      rs.members = [];
      const pools = externalPools({
        maxPools: 2,
        idleMs: 600_000,
        poolSize: 2,
        timeoutMs: 5000,
        operationTimeoutMs: 5000,
      });
      const target = async () => ({
        uri: `mongodb://${rs.self}/?heartbeatFrequencyMS=500`,
        database: 'members',
        lookup: hostResolver().lookup,
        members: rule,
        onRefusedMember: () => undefined,
      });
      try {
        const db = await pools.db('p2', 'v1', target);
        expect((await db.command({ ping: 1 })).ok).to.equal(1);
        rs.members = [refusedMember];
        for (let i = 0; i < 40 && pools.size() > 0; i++) await pause(100);
        expect(pools.size()).to.equal(0);
        await pause(300);
        expect(reached, 'connections that reached the refused member').to.equal(0);
      } finally {
        await pools.closeAll();
        await new Promise((resolve) => member.close(resolve));
      }
    });
  });
});
