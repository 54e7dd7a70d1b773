// The restricted-host rules of an external database connection (SERVICE-SPEC "External database
// connection", item 4) over HTTP: every range and form of the spec refused with its message,
// names resolved through a DNS server on loopback that the suite starts (DNS_SERVERS), SRV
// records, the check again when a pool opens, and the access-denied message when only one role
// can connect.
import { expect } from 'chai';
import { startTestApp, startTestApps, suiteDatabase, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { startMongoServer, type MongoServer } from '../helpers/mongo-server.js';
import { MESSAGES } from './external-database-shared.js';
import { MongoClient } from 'mongodb';

describe('external database connection: restricted hosts', function () {
  this.timeout(60_000);
  let ext: MongoServer;
  let dns: DnsServer;
  let splitDns: DnsServer;

  before(async () => {
    ext = await startMongoServer();
    const srvOk = [{ port: ext.port, target: 'node1.ok.test' }];
    dns = await startDnsServer({
      'db.private.test': { A: ['10.0.0.5'] },
      'db.mixed.test': { A: ['93.184.216.34', '192.168.1.20'] },
      'db.mapped.test': { AAAA: ['::ffff:127.0.0.1'] },
      'db.ula.test': { AAAA: ['fd12:3456::1'] },
      'db.linklocal.test': { A: ['169.254.169.254'] },
      '_mongodb._tcp.cluster.bad.test': {
        SRV: [
          { port: 27017, target: 'a.bad.test' },
          { port: 27017, target: 'b.bad.test' },
        ],
      },
      'a.bad.test': { A: ['93.184.216.34'] },
      'b.bad.test': { A: ['172.20.0.9'] },
      '_mongodb._tcp.cluster.away.test': { SRV: [{ port: 27017, target: 'db.elsewhere.example' }] },
      '_mongodb._tcp.cluster.ok.test': { SRV: srvOk },
      'cluster.ok.test': { TXT: ['authSource=admin'] },
      'node1.ok.test': { A: ['127.0.0.1'] },
      'db.rebind.test': { A: ['127.0.0.1'] },
      'db.split.test': { A: ['127.0.0.1'] },
    });
    // What the public role's network sees of the same name: an address where nothing listens.
    splitDns = await startDnsServer({ 'db.split.test': { A: ['127.0.0.2'] } });
  });
  after(async () => {
    await ext?.stop();
    await dns?.close();
    await splitDns?.close();
  });

  describe('without ALLOW_PRIVATE_HOSTS', () => {
    let apps: Awaited<ReturnType<typeof startTestApps>>;
    let fx: ProjectFixture;
    before(async () => {
      apps = await startTestApps('extdb_hosts', { DNS_SERVERS: dns.address });
      fx = await createProjectFixture(apps.dashboard.services);
    });
    after(async () => apps?.close());
    const put = (uri: string) =>
      apps.dashboard.client
        .with({ cookie: fx.cookie })
        .put(`/api/projects/${fx.project.id}/database`, { uri });

    const restricted: [string, string][] = [
      ['localhost', 'mongodb://localhost:27017/app'],
      ['localhost, any case, trailing dot', 'mongodb://LocalHost.:27017/app'],
      ['a .localhost name', 'mongodb://db.localhost/app'],
      ['cloud metadata name', 'mongodb://metadata.google.internal/app'],
      ['loopback 127.0.0.1', 'mongodb://127.0.0.1:27017/app'],
      ['loopback 127.255.255.254', 'mongodb://127.255.255.254/app'],
      ['IPv6 loopback', 'mongodb://[::1]:27017/app'],
      ['10.0.0.0/8', 'mongodb://10.1.2.3/app'],
      ['172.16.0.0/12 (low end)', 'mongodb://172.16.0.1/app'],
      ['172.16.0.0/12 (high end)', 'mongodb://172.31.255.255/app'],
      ['192.168.0.0/16', 'mongodb://192.168.1.1/app'],
      ['IPv4 link-local (metadata address)', 'mongodb://169.254.169.254/app'],
      ['unspecified IPv4', 'mongodb://0.0.0.0/app'],
      ['unspecified IPv6', 'mongodb://[::]/app'],
      ['IPv6 link-local', 'mongodb://[fe80::1]/app'],
      ['IPv6 unique-local fc00::/7 (fc)', 'mongodb://[fc00::1]/app'],
      ['IPv6 unique-local fc00::/7 (fd)', 'mongodb://[fd12:3456:789a::1]/app'],
      ['IPv4-mapped loopback, dotted', 'mongodb://[::ffff:127.0.0.1]/app'],
      ['IPv4-mapped private, dotted', 'mongodb://[::ffff:10.0.0.1]/app'],
      ['IPv4-mapped loopback, hex', 'mongodb://[::ffff:7f00:1]/app'],
      ['IPv4-mapped 192.168, hex', 'mongodb://[::ffff:c0a8:101]/app'],
      ['decimal IPv4 (127.0.0.1)', 'mongodb://2130706433/app'],
      ['decimal IPv4 (10.0.0.1)', 'mongodb://167772161/app'],
      ['octal IPv4', 'mongodb://0177.0.0.1/app'],
      ['octal IPv4, one number', 'mongodb://017700000001/app'],
      ['hexadecimal IPv4', 'mongodb://0x7f.0.0.1/app'],
      ['short IPv4', 'mongodb://127.1/app'],
      ['one restricted host of several', 'mongodb://93.184.216.34,10.0.0.9/app'],
      ['name resolving to 10.0.0.0/8', 'mongodb://db.private.test/app'],
      ['name with one restricted address among others', 'mongodb://db.mixed.test/app'],
      ['name resolving to IPv4-mapped loopback', 'mongodb://db.mapped.test/app'],
      ['name resolving to unique-local IPv6', 'mongodb://db.ula.test/app'],
      ['name resolving to the metadata address', 'mongodb://db.linklocal.test/app'],
      ['name that does not resolve', 'mongodb://db.nowhere.test/app'],
      ['SRV with one private target', 'mongodb+srv://cluster.bad.test/app'],
      ['SRV target outside the name’s domain', 'mongodb+srv://cluster.away.test/app'],
      ['SRV name without records', 'mongodb+srv://cluster.none.test/app'],
      ['SRV on localhost', 'mongodb+srv://db.localhost/app'],
    ];
    for (const [label, uri] of restricted) {
      it(`refuses ${label}`, async () => {
        const res = await put(uri);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.message).to.equal(MESSAGES.restricted);
        expect(res.body.details?.[0]?.path).to.equal('body.uri');
      });
    }

    it('refuses the loopback test server that ALLOW_PRIVATE_HOSTS accepts, and stores nothing', async () => {
      const res = await put(ext.uri('shop'));
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal(MESSAGES.restricted);
      const stored = await apps.dashboard.deps.db.platform.collection('external_databases').countDocuments();
      expect(stored).to.equal(0);
    });
  });

  describe('with ALLOW_PRIVATE_HOSTS', () => {
    let apps: Awaited<ReturnType<typeof startTestApps>>;
    let fx: ProjectFixture;
    let extClient: MongoClient;
    before(async () => {
      apps = await startTestApps('extdb_srv', { DNS_SERVERS: dns.address, ALLOW_PRIVATE_HOSTS: 'true' });
      fx = await createProjectFixture(apps.dashboard.services);
      extClient = new MongoClient(`mongodb://127.0.0.1:${ext.port}/?directConnection=true`);
    });
    after(async () => {
      await apps?.close();
      await extClient?.close();
    });
    const dash = () => apps.dashboard.client.with({ cookie: fx.cookie });

    it('follows SRV and TXT records through the configured resolver', async () => {
      const res = await dash().put(`/api/projects/${fx.project.id}/database`, {
        uri: 'mongodb+srv://cluster.ok.test/srvshop?tls=false',
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data).to.include({ host: 'cluster.ok.test', database: 'srvshop' });
      const notes = await dash().post(`/api/projects/${fx.project.id}/collections`, {
        name: 'notes',
        mode: 'flexible',
        fields: [{ name: 'text', type: 'String' }],
      });
      expect(notes.status).to.equal(201);
      const created = await apps.public.client
        .with({ 'x-api-key': fx.secretKey })
        .post('/api/data/notes', { text: 'via SRV' });
      expect(created.status).to.equal(201);
      expect(await extClient.db('srvshop').collection('notes').countDocuments({ text: 'via SRV' })).to.equal(
        1,
      );
    });

    it('checks the hosts again when a process opens its pool: a public role without the setting refuses', async () => {
      const saved = await dash().put(`/api/projects/${fx.project.id}/database`, {
        uri: `mongodb://db.rebind.test:${ext.port}/rebind`,
      });
      expect(saved.status).to.equal(200);
      // Another public process on the same platform, where loopback is restricted (as in production).
      const strict: TestApp = await startTestApp('public', 'extdb_strict', {
        PLATFORM_DB: apps.public.deps.config.platformDb,
        DNS_SERVERS: dns.address,
      });
      try {
        const res = await strict.client
          .with({ 'x-api-key': fx.secretKey })
          .post('/api/data/notes', { text: 'no' });
        expect(res.status).to.equal(503);
        expect(await extClient.db('rebind').collection('notes').countDocuments()).to.equal(0);
        const allowed = await apps.public.client
          .with({ 'x-api-key': fx.secretKey })
          .post('/api/data/notes', { text: 'yes' });
        expect(allowed.status).to.equal(201);
        expect(await extClient.db('rebind').collection('notes').countDocuments()).to.equal(1);
      } finally {
        await strict.close();
      }
    });

    it('gives the access-denied message with both roles’ addresses when only the dashboard connects', async () => {
      const egress = { DASHBOARD_EGRESS_IPS: '198.51.100.7', PUBLIC_EGRESS_IPS: '198.51.100.8' };
      const platformDb = suiteDatabase('extdb_split');
      const publicRole = await startTestApp('public', 'extdb_split', {
        ...egress,
        PLATFORM_DB: platformDb,
        ALLOW_PRIVATE_HOSTS: 'true',
        DNS_SERVERS: splitDns.address,
      });
      const dashboard = await startTestApp('dashboard', 'extdb_split', {
        ...egress,
        PLATFORM_DB: platformDb,
        ALLOW_PRIVATE_HOSTS: 'true',
        DNS_SERVERS: dns.address,
        PUBLIC_INTERNAL_URL: publicRole.url,
      });
      try {
        const owner = await createProjectFixture(dashboard.services);
        const res = await dashboard.client
          .with({ cookie: owner.cookie })
          .put(`/api/projects/${owner.project.id}/database`, {
            uri: `mongodb://db.split.test:${ext.port}/split`,
          });
        expect(res.status).to.equal(400);
        expect(res.body.message).to.equal(
          "Access Denied: Please whitelist Server IPs [198.51.100.7, 198.51.100.8] in your database provider's network access list.",
        );
      } finally {
        await dashboard.close();
        await publicRole.close();
      }
    });
  });
});
