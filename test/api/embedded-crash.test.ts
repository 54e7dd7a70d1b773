// The embedded database through a crash: creates acknowledged with 201 by the service on the
// development profile's database (mongo-java-server, H2 file) are all there after its Java process
// is killed with SIGKILL (as the OOM killer or a power cut would) and started again. Before the
// launcher committed each write, the last ~0.8 s of acknowledged creates were gone.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../helpers/fixtures.js';
import { createDevStack, devStackAvailable, type DevStack } from '../helpers/dev-stack.js';

const CREATES = 150;
const CLIENTS = 4;

describe('the embedded database through a crash', function () {
  this.timeout(240_000);
  let dev: DevStack | undefined;
  let app: TestApp | undefined;

  before(async function () {
    // The stack's own jars are needed (not there with FerretDB or an outside MONGODB_URI).
    if (!devStackAvailable()) this.skip();
    dev = await createDevStack();
    const started = await dev.stack('start');
    expect(started.code, started.output).to.equal(0);
  });

  after(async () => {
    await app?.close().catch(() => undefined);
    await dev?.remove();
  });

  it('keeps every create acknowledged before the database process was killed', async () => {
    app = await startTestApp('public', 'embedded_crash', {
      MONGODB_URI: dev!.uri,
      EMBEDDED_DATABASE: 'true',
      RATE_LIMIT_CLIENT_SHARE_PERCENT: '100',
    });
    const fx = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fx.project.id, {
      name: 'items',
      mode: 'schema',
      fields: [{ name: 'n', type: 'Number' }],
    });
    const secret = app.client.with({ 'x-api-key': fx.secretKey });

    const acknowledged: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < CREATES) {
          const res = await secret.post('/api/data/items', { n: next++ });
          expect(res.status, res.text).to.equal(201);
          acknowledged.push(res.body.data._id);
        }
      }),
    );
    // Right after the last acknowledgement, as a crash would come.
    const pid = dev!.mongoPid();
    expect(pid, 'the database pid').to.be.a('number');
    process.kill(pid!, 'SIGKILL');

    const restarted = await dev!.stack('start');
    expect(restarted.code, restarted.output).to.equal(0);
    expect(dev!.mongoPid()).to.not.equal(pid);

    // The app's driver reconnects to the new process on the same port.
    let total: number | undefined;
    for (let attempt = 0; attempt < 120 && total === undefined; attempt++) {
      const res = await secret.get('/api/data/items', { query: { total: 'true', limit: '1' } });
      if (res.status === 200) total = res.body.pagination.total;
      else await new Promise((r) => setTimeout(r, 500));
    }
    expect(total, `acknowledged creates found after the crash (of ${acknowledged.length})`).to.equal(CREATES);
    const last = await secret.get(`/api/data/items/${acknowledged.at(-1)}`);
    expect(last.status, 'the last acknowledged create').to.equal(200);
  });
});
