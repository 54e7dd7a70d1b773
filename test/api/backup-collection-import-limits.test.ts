// The limits of the streamed collection import over HTTP: a project runs at most two imports at
// once (a third is 429 TOO_MANY_IMPORTS, and one starts again once another ended), and an
// all-or-nothing import stops reading its body at the first refused row (a body past the import
// limit is answered 400 for that row, not 413, and most of it is never pulled from the client).
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { MAX_IMPORTS_PER_PROJECT } from '../../src/services/backups/import-writes.js';

const IMPORT_LIMIT = 8 * 1024 * 1024;
const ROW = `${JSON.stringify({ name: 'a row', pad: 'x'.repeat(150) })}\n`;

/** `n` chunks of 200 rows; counts the bytes the client was asked for; waits for `gate` after the first. */
function body(n: number, pulled: { bytes: number }, first = ROW, gate?: Promise<void>) {
  return (async function* () {
    for (let i = 0; i < n; i++) {
      const chunk = Buffer.from((i === 0 ? first : ROW) + ROW.repeat(199));
      pulled.bytes += chunk.length;
      yield chunk;
      if (i === 0 && gate) await gate;
    }
  })();
}

describe('backups: the limits of a collection import', function () {
  this.timeout(120_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let app: Awaited<ReturnType<typeof startTestApps>>['dashboard'];
  let fx: ProjectFixture;
  let dash: ApiClient;
  const url = (name: string) => `/api/projects/${fx.project.id}/collections/${name}/import`;
  const send = (name: string, rawBody: AsyncIterable<Uint8Array>) =>
    dash.request('POST', url(name), { rawBody, headers: { 'content-type': 'application/x-ndjson' } });
  const running = () =>
    app.deps.db.platform.collection('import_jobs').countDocuments({ projectId: fx.project.id });

  before(async () => {
    apps = await startTestApps('backup_import_limits', { IMPORT_MAX_BYTES: String(IMPORT_LIMIT) });
    app = apps.dashboard;
    fx = await createProjectFixture(app.services, 'Imports');
    dash = app.client.with({ cookie: fx.cookie });
    for (const name of ['a', 'b', 'c']) {
      const res = await dash.post(`/api/projects/${fx.project.id}/collections`, {
        name,
        mode: 'schema',
        fields: [
          { name: 'name', type: 'String', required: true },
          { name: 'pad', type: 'String' },
        ],
      });
      expect(res.status, res.text).to.equal(201);
    }
  });
  after(() => apps?.close());

  it(`runs ${MAX_IMPORTS_PER_PROJECT} imports of a project at once; a third is 429 until one ends`, async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held = ['a', 'b'].map((name) => send(name, body(5, { bytes: 0 }, ROW, gate)));
    for (let i = 0; i < 200 && (await running()) < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await running()).to.equal(2);

    const third = await send('c', body(1, { bytes: 0 }));
    expect(third.status, third.text).to.equal(429);
    expect(third.body.code).to.equal('TOO_MANY_IMPORTS');
    expect(third.body.message).to.equal(
      'This project already runs 2 imports, the most it may run at once: retry once one ends',
    );
    expect(third.headers.get('retry-after')).to.equal('5');
    // The cap is the project's, whichever role the import comes through.
    const keyed = await apps.public.client
      .with({ 'x-api-key': fx.secretKey })
      .request('POST', '/api/collections/c/import', {
        rawBody: body(1, { bytes: 0 }),
        headers: { 'content-type': 'application/x-ndjson' },
      });
    expect(keyed.status, keyed.text).to.equal(429);
    expect(keyed.body.code).to.equal('TOO_MANY_IMPORTS');
    expect(await running()).to.equal(2); // the refused one left no job behind
    expect(await app.deps.db.project(fx.project.id).collection('c').countDocuments()).to.equal(0);

    open();
    for (const res of await Promise.all(held)) expect(res.status, res.text).to.equal(200);
    expect(await running()).to.equal(0);
    const again = await send('c', body(1, { bytes: 0 }));
    expect(again.status, again.text).to.equal(200);
    expect(again.body.data.imported).to.equal(200);
  });

  it('all-or-nothing stops reading at the first refused row', async () => {
    // 16 MB, twice the import limit: read to the end it would be a 413.
    const pulled = { bytes: 0 };
    const chunks = Math.ceil((2 * IMPORT_LIMIT) / (200 * ROW.length));
    const res = await send('c', body(chunks, pulled, `${JSON.stringify({ pad: 'no name' })}\n`));
    expect(res.status, res.text).to.equal(400);
    expect(res.body.message).to.equal(
      'Row 1 is invalid; nothing was imported (the rows after it were not read)',
    );
    expect(res.body.details).to.deep.equal([{ path: 'row 1: name', message: 'name is required' }]);
    expect(res.headers.get('connection')).to.equal('close');
    console.log(`      ${pulled.bytes} of ${chunks * 200 * ROW.length} bytes pulled from the client`);
    expect(pulled.bytes).to.be.below(IMPORT_LIMIT);
    expect(await app.deps.db.project(fx.project.id).collection('c').countDocuments()).to.equal(200);
  });
});
