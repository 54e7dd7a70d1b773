// Export and import of one collection with the secret key on the public API: the import streamed
// as JSON Lines, then exported as CSV and imported back; 401 without a key, 403 with the
// publishable key, 400 (a bad format, a CSV without header), 404, 409 and 413 (past the import limit).
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, POST_FIELDS, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

describe('backups: collection export and import with the secret key', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  let secret: ApiClient;
  const lines = (rows: unknown[]) => Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n'));
  const ndjson = { 'content-type': 'application/x-ndjson' };

  before(async () => {
    app = await startTestApp('public', 'backup_io_key', { IMPORT_MAX_BYTES: '4096' });
    fx = await createProjectFixture(app.services, 'Keyed IO');
    secret = app.client.with({ 'x-api-key': fx.secretKey });
    for (const name of ['posts', 'copy']) {
      const res = await secret.post('/api/schemas', { name, mode: 'schema', fields: POST_FIELDS });
      expect(res.status, res.text).to.equal(201);
    }
  });
  after(() => app?.close());

  it('imports streamed JSON Lines, exports CSV and imports it back', async () => {
    const rows = [
      { title: 'One', slug: 'one', views: 1 },
      { title: 'Two', slug: 'two', views: 2 },
      { slug: 'no-title' },
    ];
    const res = await secret.request('POST', '/api/collections/posts/import', {
      rawBody: lines(rows),
      headers: ndjson,
      query: { mode: 'skip-invalid' },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal({
      imported: 2,
      rejected: [{ row: 3, field: 'title', reason: 'title is required' }],
      rejectedRows: 1,
    });
    const csv = await secret.get('/api/collections/posts/export', { query: { format: 'csv' } });
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const back = await secret.request('POST', '/api/collections/copy/import', {
      rawBody: csv.text,
      headers: { 'content-type': 'text/csv' },
    });
    expect(back.status, back.text).to.equal(200);
    expect(back.body.data.imported).to.equal(2);
    const copy = await secret.get('/api/collections/copy/export');
    expect(
      copy.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).slug),
    ).to.deep.equal(['one', 'two']);
  });

  it('answers 400, 401, 403, 404, 409 and 413', async () => {
    const post = (client: ApiClient, path: string, body: string | Buffer, headers = ndjson) =>
      client.request('POST', path, { rawBody: body, headers });
    const body = lines([{ title: 'x', slug: 'x' }]);
    expect((await post(app.client, '/api/collections/posts/import', body)).status).to.equal(401);
    expect((await app.client.get('/api/collections/posts/export')).status).to.equal(401);
    const publishable = app.client.with({ 'x-api-key': fx.publishableKey });
    const refused = await post(publishable, '/api/collections/posts/import', body);
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('SECRET_KEY_REQUIRED');
    expect((await publishable.get('/api/collections/posts/export')).status).to.equal(403);
    expect((await post(secret, '/api/collections/ghosts/import', body)).status).to.equal(404);
    expect((await secret.get('/api/collections/ghosts/export')).status).to.equal(404);
    expect((await secret.get('/api/collections/posts/export', { query: { format: 'xml' } })).status).to.equal(
      400,
    );
    const noHeader = await post(secret, '/api/collections/posts/import', '', { 'content-type': 'text/csv' });
    expect(noHeader.status).to.equal(400);
    expect(noHeader.body.message).to.equal('The CSV has no header row');
    const clash = await post(
      secret,
      '/api/collections/posts/import',
      lines([{ title: 'Again', slug: 'one' }]),
    );
    expect(clash.status).to.equal(409);
    expect(clash.body.code).to.equal('DUPLICATE_VALUE');
    const large = await post(
      secret,
      '/api/collections/posts/import',
      lines(Array.from({ length: 200 }, (_, i) => ({ title: `t${i}`, slug: `large-${i}` }))),
    );
    expect(large.status).to.equal(413);
    expect(large.body.message).to.equal('The import is larger than the import limit of 4096 bytes');
  });
});
