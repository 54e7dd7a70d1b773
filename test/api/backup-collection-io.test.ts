// Export and import of one collection over HTTP: JSON Lines and CSV out, back into another
// collection with one invalid row reported (all-or-nothing writes nothing; skip-invalid writes
// the rest), the quota and unique fields checked, and the 400/401/404 of both operations.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

describe('backups: export and import of one collection', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  let dash: ApiClient;
  const fields = [
    { name: 'name', type: 'String', required: true },
    { name: 'sku', type: 'String', unique: true },
    { name: 'price', type: 'Number' },
    { name: 'tags', type: 'Array' },
    { name: 'meta', type: 'Object' },
  ];
  const base = (name: string, projectId = fx.project.id) => `/api/projects/${projectId}/collections/${name}`;
  const rows = [
    { name: 'Plain', sku: 'a1', price: 3, tags: ['x'], meta: { color: 'red' } },
    { name: 'Comma, "quoted"\nand a line', sku: 'a2', price: 4.5, tags: [], meta: { nested: { n: 1 } } },
    { name: 'No price', sku: 'a3' },
  ];
  const strip = (doc: Record<string, unknown>) => {
    const { _id, createdAt, updatedAt, isDeleted, deletedAt, ...rest } = doc;
    void [_id, createdAt, updatedAt, isDeleted, deletedAt];
    return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null));
  };

  before(async () => {
    app = await startTestApp('dashboard', 'backup_collection_io');
    fx = await createProjectFixture(app.services, 'IO');
    dash = app.client.with({ cookie: fx.cookie });
    for (const name of ['products', 'copy', 'again', 'formulas']) {
      const res = await dash.post(`/api/projects/${fx.project.id}/collections`, {
        name,
        mode: 'schema',
        fields,
      });
      expect(res.status, res.text).to.equal(201);
    }
  });
  after(() => app?.close());

  it('imports JSON Lines, exports CSV, and imports it back with the invalid row reported', async () => {
    const jsonl = rows.map((r) => JSON.stringify(r)).join('\n');
    const first = await dash.post(`${base('products')}/import`, { format: 'jsonl', content: jsonl });
    expect(first.status, first.text).to.equal(200);
    expect(first.body.data).to.deep.equal({ imported: 3, rejected: [], rejectedRows: 0 });

    const csv = await dash.get(`${base('products')}/export`, { query: { format: 'csv' } });
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.text.split('\r\n')[0]).to.equal('_id,name,sku,price,tags,meta,createdAt,updatedAt');
    expect(csv.text).to.include('"Comma, ""quoted""\nand a line"');

    const broken = `${csv.text},,b9,not a number,,,,\r\n`; // row 5: no name, a price that is no number
    const atomic = await dash.post(`${base('copy')}/import`, { format: 'csv', content: broken });
    expect(atomic.status).to.equal(400);
    expect(atomic.body.message).to.equal(
      'Row 5 is invalid; nothing was imported (the rows after it were not read)',
    );
    expect(atomic.body.details.map((d: any) => d.path)).to.include.members(['row 5: name', 'row 5: price']);
    const empty = await dash.get(`${base('copy')}/export`);
    expect(empty.text).to.equal('');

    const skipped = await dash.post(`${base('copy')}/import`, {
      format: 'csv',
      mode: 'skip-invalid',
      content: broken,
    });
    expect(skipped.status, skipped.text).to.equal(200);
    expect(skipped.body.data.imported).to.equal(3);
    expect(skipped.body.data.rejected.map((r: any) => [r.row, r.field])).to.have.deep.members([
      [5, 'name'],
      [5, 'price'],
    ]);

    const exported = await dash.get(`${base('copy')}/export`);
    expect(exported.status).to.equal(200);
    expect(exported.headers.get('content-type')).to.equal('application/x-ndjson');
    const back = exported.text
      .trim()
      .split('\n')
      .map((line) => strip(JSON.parse(line)));
    expect(back).to.deep.equal(rows);
  });

  it('writes formula-like text cells of a CSV export with a leading quote, and as stored on request', async () => {
    const payloads = [
      '=HYPERLINK("http://evil.test","x")',
      '+1+cmd|calc',
      '-2+3',
      '@SUM(A1)',
      '\tTAB',
      '\rCR',
    ];
    const content = payloads.map((name, i) => JSON.stringify({ name, sku: `f${i}`, price: -5 })).join('\n');
    const imported = await dash.post(`${base('formulas')}/import`, { format: 'jsonl', content });
    expect(imported.body.data, imported.text).to.include({ imported: payloads.length });
    const cellsOf = (text: string) =>
      text
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[1]);
    const escaped = await dash.get(`${base('formulas')}/export`, { query: { format: 'csv' } });
    expect(escaped.status).to.equal(200);
    // Each formula-like name starts with `'` (quoted where CSV needs it); the number -5 stays as is.
    expect(escaped.text).to.include(`'=HYPERLINK(""http://evil.test"",""x"")`);
    for (const name of ['+1+cmd|calc', '-2+3', '@SUM(A1)', '\tTAB'])
      expect(escaped.text).to.include(`,'${name},`);
    expect(escaped.text).to.include(`,"'\rCR",`);
    expect(escaped.text).not.to.match(/,'-5,/);
    expect(escaped.text.split('\r\n')[1]).to.match(/,-5,/);
    for (const cell of cellsOf(escaped.text))
      expect(cell, 'no cell starts like a formula').not.to.match(/^[=+\-@\t]/);

    const raw = await dash.get(`${base('formulas')}/export`, {
      query: { format: 'csv', escapeFormulas: 'false' },
    });
    expect(raw.status).to.equal(200);
    expect(raw.text).to.include(',"=HYPERLINK(');
    expect(raw.text).to.include(',@SUM(A1),');
    const bad = await dash.get(`${base('formulas')}/export`, {
      query: { format: 'csv', escapeFormulas: 'maybe' },
    });
    expect(bad.status).to.equal(400);
  });

  it('stops at a unique conflict (409) and at the quota (403)', async () => {
    const dup = [
      { name: 'A', sku: 'same' },
      { name: 'B', sku: 'same' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    expect((await dash.post(`${base('again')}/import`, { format: 'jsonl', content: dup })).status).to.equal(
      409,
    );
    await app.services.repos.projects.setLimits(fx.project.id, { databaseBytes: 1 });
    const res = await dash.post(`${base('again')}/import`, { format: 'jsonl', content: '{"name":"C"}' });
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('QUOTA_EXCEEDED');
    await app.services.repos.projects.setLimits(fx.project.id, {});
  });

  it('answers 400, 401 and 404', async () => {
    for (const [method, suffix, body] of [
      ['GET', 'export', undefined],
      ['POST', 'import', { format: 'jsonl', content: '' }],
    ] as const) {
      const call = (client: ApiClient, path: string) => client.request(method, path, body ? { body } : {});
      expect((await call(app.client, `${base('products')}/${suffix}`)).status).to.equal(401);
      expect((await call(dash, `${base('products', 'nope')}/${suffix}`)).status).to.equal(400);
      expect((await call(dash, `${base('ghosts')}/${suffix}`)).status).to.equal(404);
    }
    expect((await dash.get(`${base('products')}/export`, { query: { format: 'xml' } })).status).to.equal(400);
    expect(
      (await dash.post(`${base('products')}/import`, { format: 'csv', content: '"open' })).status,
    ).to.equal(400);
  });
});
