// The restricted-host rule across every developer-supplied target (webhook URLs, storage
// endpoints, SMTP servers, external databases): ALLOW_PRIVATE_HOSTS lets private and loopback
// addresses through but never link-local or cloud metadata ones, and a refusal says "not
// allowed" without naming the address a name resolved to.
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js';
import { MESSAGES } from './external-database-shared.js';
import { isRestrictedAddress } from '../../src/lib/restricted-hosts.js';

const METADATA = ['169.254.169.254', 'metadata.google.internal', '[fd00:ec2::254]', '100.100.100.200'];

describe('restricted hosts across targets', function () {
  this.timeout(60_000);
  let dns: DnsServer;
  before(async () => {
    dns = await startDnsServer({
      'hidden.private.test': { A: ['10.9.8.7'] },
      'meta.alias.test': { A: ['169.254.169.254'] },
    });
  });
  after(() => dns?.close());

  const targets = (fx: ProjectFixture) => {
    const base = `/api/projects/${fx.project.id}`;
    return {
      webhook: (host: string) => [
        'post',
        `${base}/webhooks`,
        { url: `https://${host}/in`, events: ['document.created'] },
      ],
      storage: (host: string) => [
        'put',
        `${base}/storage`,
        {
          endpoint: `https://${host}`,
          region: 'us-east-1',
          bucket: 'bucket',
          accessKeyId: 'k',
          secretAccessKey: 's',
        },
      ],
      smtp: (host: string) => [
        'put',
        `${base}/mail/smtp`,
        { host, port: 587, username: 'u', password: 'p', from: 'app@example.test' },
      ],
      database: (host: string) => ['put', `${base}/database`, { uri: `mongodb://${host}:27017/app` }],
    } as Record<string, (host: string) => [string, string, unknown]>;
  };

  async function setup(overrides: Record<string, string>) {
    const apps = await startTestApps(`restricted_${overrides.ALLOW_PRIVATE_HOSTS}`, {
      DNS_SERVERS: dns.address,
      ...overrides,
    });
    const fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
    const dash = apps.dashboard.client.with({ cookie: fx.cookie });
    const send = async (kind: string, host: string) => {
      const [method, path, body] = targets(fx)[kind]!(host);
      return method === 'post' ? dash.post(path, body) : dash.put(path, body);
    };
    return { apps, send };
  }

  const expectRefused = (res: { status: number; body: any }, label: string, hidden: string[]) => {
    expect(res.status, `${label} ${JSON.stringify(res.body)}`).to.equal(400);
    if (label.startsWith('database')) expect(res.body.message, label).to.equal(MESSAGES.restricted);
    else expect(res.body.code, label).to.equal('RESTRICTED_HOST');
    for (const text of hidden) expect(JSON.stringify(res.body), label).not.to.include(text);
  };

  describe('with ALLOW_PRIVATE_HOSTS', () => {
    let s: Awaited<ReturnType<typeof setup>>;
    before(async () => (s = await setup({ ALLOW_PRIVATE_HOSTS: 'true' })));
    after(() => s?.apps.close());

    for (const kind of ['webhook', 'storage', 'smtp', 'database']) {
      it(`refuses link-local and cloud metadata targets: ${kind}`, async () => {
        for (const host of METADATA) expectRefused(await s.send(kind, host), `${kind} ${host}`, []);
      });
    }

    it('still lets a private address through (a webhook on 10.1.2.3)', async () => {
      const res = await s.send('webhook', '10.1.2.3');
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    });
  });

  describe('without ALLOW_PRIVATE_HOSTS', () => {
    let s: Awaited<ReturnType<typeof setup>>;
    before(async () => (s = await setup({ ALLOW_PRIVATE_HOSTS: 'false' })));
    after(() => s?.apps.close());

    it('answers a name that does not resolve exactly as a restricted one, for every target', async () => {
      const shape = (res: { status: number; body: any }) => ({
        status: res.status,
        code: res.body.code,
        message: res.body.message,
        details: res.body.details,
      });
      for (const kind of ['webhook', 'storage', 'smtp', 'database']) {
        // Through the test DNS server for databases, the system resolver for the others: a
        // reserved TLD never resolves; the private name resolves to 10.9.8.7.
        const missing = await s.send(kind, 'no-such-host.invalid');
        const internal = await s.send(kind, kind === 'database' ? 'hidden.private.test' : 'localhost');
        expect(missing.status, `${kind} ${JSON.stringify(missing.body)}`).to.equal(400);
        expect(shape(missing), kind).to.deep.equal(shape(internal));
      }
    });

    it('says "not allowed" without naming the address a name resolved to', async function () {
      // Through the test DNS server (external databases use DNS_SERVERS).
      for (const name of ['hidden.private.test', 'meta.alias.test']) {
        expectRefused(await s.send('database', name), `database ${name}`, ['10.9.8.7', '169.254']);
      }
      // Through the system resolver (the others): this machine's own name resolves to its address.
      const own = os.hostname();
      const address = await lookup(own).then(
        (r) => r.address,
        () => undefined,
      );
      if (!address || !isRestrictedAddress(address)) return this.skip();
      for (const kind of ['webhook', 'storage', 'smtp']) {
        const res = await s.send(kind, own);
        expectRefused(res, `${kind} ${own}`, [address]);
        expect(res.body.details?.[0]?.message, kind).to.match(/not allowed/);
      }
    });
  });
});
