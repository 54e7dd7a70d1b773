// The behaviour every route shares: JSON errors, request ids, body limits, the spec and docs.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('HTTP basics', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('public', 'http', { BODY_LIMIT_BYTES: '2048' });
  });
  after(() => app.close());

  it('answers unknown routes with a JSON 404', async () => {
    const res = await app.client.get('/api/nothing-here');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({ success: false, data: null, code: 'ROUTE_NOT_FOUND' });
    expect(res.body.message).to.equal('No route for GET /api/nothing-here');
  });

  it('blocks every path under /api/data/users with 403, whatever the depth or method', async () => {
    for (const [method, path] of [
      ['GET', '/api/data/users'],
      ['GET', '/api/data/users/a/b/c'],
      ['DELETE', '/api/data/users/65f1c2a4b7e8d90012345678/restore/x'],
      ['PUT', '/api/data/users/'],
    ] as const) {
      const res = await app.client.request(method, path);
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body).to.deep.include({ success: false, code: 'USERS_COLLECTION' });
    }
    expect((await app.client.get('/api/data/usersettings')).status).to.not.equal(403);
  });

  it('answers a wrong method with a JSON 405', async () => {
    const res = await app.client.request('DELETE', '/api/health');
    expect(res.status).to.equal(405);
    expect(res.body).to.deep.include({ success: false, code: 'METHOD_NOT_ALLOWED' });
    expect(res.headers.get('allow')).to.include('GET');
  });

  it("answers a method the literal route lacks with a 405, not with the parameter route's answer", async () => {
    // GET /api/data/{collectionName}/{id} also matches `/bulk`; the literal route (POST only) owns it.
    for (const path of ['/api/data/products/bulk', '/api/data/products/aggregate']) {
      const res = await app.client.request('GET', path);
      expect(res.status, path).to.equal(405);
      expect(res.body).to.deep.include({ success: false, code: 'METHOD_NOT_ALLOWED' });
      expect(res.headers.get('allow'), path).to.equal('POST');
    }
  });

  it('answers malformed JSON with a JSON 400', async () => {
    const res = await app.client.request('POST', '/api/health', {
      rawBody: '{"a": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ success: false, data: null, code: 'INVALID_JSON' });
  });

  it('answers a body over the configured limit with a JSON 413', async () => {
    const res = await app.client.request('POST', '/api/health', {
      rawBody: JSON.stringify({ big: 'x'.repeat(4096) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(413);
    expect(res.body).to.deep.include({ success: false, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('puts a request id on every response and keeps a well-formed incoming one', async () => {
    const fresh = await app.client.get('/api/health');
    expect(fresh.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const kept = await app.client.get('/api/health', { headers: { 'x-request-id': 'trace-42' } });
    expect(kept.headers.get('x-request-id')).to.equal('trace-42');
    const replaced = await app.client.get('/api/health', { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).to.not.equal('bad id <script>');
  });

  it('serves its bundled spec at /openapi.json with the configured base URL', async () => {
    const res = await app.client.get('/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.match(/^3\./);
    expect(res.body.paths).to.have.property('/api/health');
    expect(res.body.servers).to.deep.equal([{ url: app.deps.config.publicUrl }]);
  });

  it('serves a reference page at /docs from local assets, and nothing else of the package', async () => {
    const page = await app.client.get('/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.include('text/html');
    expect(page.text).to.include('/docs/swagger-ui-bundle.js');
    expect(page.text).to.not.match(/https?:\/\//);
    const bundle = await app.client.get('/docs/swagger-ui-bundle.js');
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get('content-type')).to.include('javascript');
    const other = await app.client.get('/docs/package.json');
    expect(other.status).to.equal(404);
  });
});
