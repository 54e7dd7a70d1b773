// The dashboard role serves the built web dashboard for page paths only: the API, its reference
// page and its spec keep their own answers; without a build, pages say how to build it.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { contentSecurityPolicy, webApp } from '../../src/http/web.js';

describe('web dashboard serving', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('dashboard', 'web_serving');
  });
  after(() => app?.close());

  it('leaves /docs, /openapi.json and /api to the API, and never answers writes with a page', async () => {
    const docs = await fetch(`${app.url}/docs`);
    expect(await docs.text()).to.include('swagger-ui');
    const spec = await fetch(`${app.url}/openapi.json`);
    expect(spec.headers.get('content-type')).to.match(/json/);
    const write = await fetch(`${app.url}/projects`, { method: 'POST' });
    expect(write.status).to.equal(404);
    expect((await write.json()).code).to.equal('ROUTE_NOT_FOUND');
  });

  it('answers a 503 page saying how to build when there is no build', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'baas-web-'));
    const koa = new Koa();
    koa.use(webApp(dir, ['http://localhost:3000']));
    const server: Server = koa.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/projects`);
      expect(res.status).to.equal(503);
      expect(await res.text()).to.include('npm run build:web');
      expect(res.headers.get('cache-control')).to.equal('no-store');
    } finally {
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lets the page reach only its own origin and the configured ones, never any https host', () => {
    const csp = contentSecurityPolicy([
      'http://localhost:3000/',
      undefined,
      'not a url',
      'https://b.example/x',
    ]);
    expect(csp).to.include("connect-src 'self' http://localhost:3000 https://b.example;");
    expect(csp).to.include("img-src 'self' data: http://localhost:3000 https://b.example;");
    expect(csp).not.to.match(/ https:(;|$| )/);
    expect(contentSecurityPolicy([])).to.include("connect-src 'self';");
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("object-src 'none'");
  });
});
