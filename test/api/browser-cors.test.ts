// A real browser (Debian's Chromium, driven by playwright-core) runs a web app served from one
// origin against the public API on another, as a customer's app would: publishable key,
// `credentials: 'include'` on every call, end-user sign-up, RLS writes and reads, a presigned upload
// to the filesystem store, a session refresh; and a page from an origin the project does not list,
// which the browser refuses to let read anything.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { openPage } from '../helpers/browser.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { contextFor } from '../helpers/fixtures.js';
import { authProject, newEmail, PASSWORD, type AuthProject } from '../helpers/user-auth.js';

/** Calls the API from inside the page, through the page's own `api` function. */
const callApi = (page: Page, method: string, route: string, options: Record<string, unknown>) =>
  page.evaluate(([m, r, o]) => (window as any).api(m, r, o), [
    method,
    route,
    options,
  ] as const) as Promise<Answer>;

/** The app's page: `window.api(method, path, options)` calls the API the way a browser SDK does. */
const pageHtml = (api: string, key: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>web app</title></head><body>
<script>
  const API = ${JSON.stringify(api)};
  const KEY = ${JSON.stringify(key)};
  window.api = async (
    method,
    path,
    { body, token, headers = {}, raw, key = true, credentials = 'include' } = {},
  ) => {
    const sent = { ...headers };
    if (key) sent['x-api-key'] = KEY;
    if (token) sent.authorization = 'Bearer ' + token;
    let payload = raw;
    if (body !== undefined) {
      sent['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const url = path.startsWith('http') ? path : API + path;
    const res = await fetch(url, { method, headers: sent, body: payload, credentials });
    const type = res.headers.get('content-type') || '';
    return {
      status: res.status,
      body: type.includes('json') ? await res.json() : await res.text(),
      requestId: res.headers.get('x-request-id'),
    };
  };
</script></body></html>`;

async function servePage(html: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

type Answer = { status: number; body: any; requestId: string | null };

describe('a web app in a real browser, on another origin than the API', function () {
  this.timeout(60_000);
  let app: TestApp;
  let p: AuthProject;
  let dir: string;
  let browser: Browser;
  let page: Page;
  let appPage: Awaited<ReturnType<typeof servePage>>;
  let foreignPage: Awaited<ReturnType<typeof servePage>>;
  let apiOrigin: string;
  const session = { accessToken: '', refreshToken: '', userId: '' };

  const call = (method: string, route: string, options: Record<string, unknown> = {}) =>
    callApi(page, method, route, options);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'baas-browser-'));
    app = await startTestApp('public', 'browser_cors', {
      S3_BUCKET: '',
      STORAGE_DIR: dir,
      USER_AUTH_SIGNUPS_PER_HOUR: '10000',
    });
    // The API is reached as localhost, the pages as 127.0.0.1: other origins and other sites.
    apiOrigin = app.url.replace('127.0.0.1', 'localhost');
    p = await authProject(app);
    appPage = await servePage(pageHtml(apiOrigin, p.publishableKey));
    foreignPage = await servePage(pageHtml(apiOrigin, p.publishableKey));
    p.project = await app.services.projects.update(p.project, {
      settings: { allowedOrigins: [appPage.origin] },
    });
    await app.services.storage.settings.update(p.project, { endUserUploads: true });
    await app.services.collections.create(contextFor({ developer: p.developer }), p.project.id, {
      name: 'notes',
      mode: 'schema',
      fields: [
        { name: 'text', type: 'String', required: true },
        { name: 'userId', type: 'String' },
      ],
      rls: { enabled: true, mode: 'private', ownerField: 'userId' },
    });
    ({ browser, page } = await openPage(appPage.origin));
  });

  after(async () => {
    await browser?.close();
    appPage?.server.close();
    foreignPage?.server.close();
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('signs an end user up, then writes and reads under RLS', async () => {
    const created = await call('POST', '/api/userAuth/signup', {
      body: { email: newEmail('browser'), password: PASSWORD },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.requestId, 'exposed response header').to.be.a('string');
    Object.assign(session, created.body.data, { userId: created.body.data.user._id });

    const written = await call('POST', '/api/data/notes', {
      token: session.accessToken,
      body: { text: 'written from a page' },
    });
    expect(written.status, JSON.stringify(written.body)).to.equal(201);
    expect(written.body.data.userId).to.equal(session.userId);

    const read = await call('GET', '/api/data/notes', { token: session.accessToken });
    expect(read.status).to.equal(200);
    expect(read.body.data.map((d: { text: string }) => d.text)).to.deep.equal(['written from a page']);
    const anonymous = await call('GET', '/api/data/notes');
    expect(anonymous.status, 'private RLS: a token is needed').to.equal(401);
  });

  it('uploads a file through the presigned flow and downloads it', async () => {
    const content = 'hello from the browser';
    const ticket = await call('POST', '/api/storage/upload-request', {
      token: session.accessToken,
      body: { filename: 'hello.txt', contentType: 'text/plain', size: content.length },
    });
    expect(ticket.status, JSON.stringify(ticket.body)).to.equal(200);
    // The test app's PUBLIC_URL is not its ephemeral address: keep the signed path and query.
    const signed = new URL(ticket.body.data.signedUrl as string);
    // Keyless routes grant no credentials (the signed URL is the credential): the page omits them.
    const put = await call('PUT', signed.pathname + signed.search, {
      key: false,
      headers: { 'content-type': 'text/plain' },
      raw: content,
      credentials: 'omit',
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);

    const confirmed = await call('POST', '/api/storage/upload-confirm', {
      token: session.accessToken,
      body: { filePath: ticket.body.data.filePath, size: content.length },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
    const download = await call('GET', new URL(confirmed.body.data.url as string).pathname, {
      key: false,
      credentials: 'omit',
    });
    expect(download).to.deep.include({ status: 200, body: content });
  });

  it('refreshes the session with the token in a header: the Lax cookie does not travel cross-site', async () => {
    const byCookie = await call('POST', '/api/userAuth/refresh-token');
    expect(byCookie.status).to.equal(400);
    expect(byCookie.body.code).to.equal('MISSING_REFRESH_TOKEN');

    const refreshed = await call('POST', '/api/userAuth/refresh-token', {
      headers: { 'x-refresh-token': session.refreshToken },
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    expect(refreshed.body.data.refreshToken).not.to.equal(session.refreshToken);
    const me = await call('GET', '/api/userAuth/me', { token: refreshed.body.data.accessToken });
    expect(me.status).to.equal(200);
    expect(me.body.data._id).to.equal(session.userId);
  });

  it('lets the page read error answers (401, 404) instead of a bare network failure', async () => {
    const missing = await call('GET', '/api/data/notes/65f1c2a4b7e8d90012345678', {
      token: session.accessToken,
    });
    expect(missing.status).to.equal(404);
    expect(missing.body.code).to.be.a('string');
    const badToken = await call('GET', '/api/userAuth/me', { token: 'not-a-token' });
    expect(badToken.status).to.equal(401);
  });

  it('refuses a page from an origin the project does not list: the fetch fails, the console says CORS', async () => {
    const foreign = await browser.newPage();
    const messages: string[] = [];
    foreign.on('console', (message) => messages.push(message.text()));
    await foreign.goto(foreignPage.origin);
    const outcome = await foreign.evaluate(async () => {
      try {
        const res = await (window as any).api('GET', '/api/data/notes');
        return `answered ${res.status}`;
      } catch (err) {
        return String(err);
      }
    });
    await foreign.close();
    expect(outcome).to.equal('TypeError: Failed to fetch');
    expect(messages.join('\n')).to.match(/blocked by CORS policy/);
    expect(messages.join('\n')).to.include(foreignPage.origin);
  });

  it('gives a project that lists no origins answers without credentials: include fails, omit reads', async () => {
    const open = await authProject(app);
    const served = await servePage(pageHtml(apiOrigin, open.publishableKey));
    const tab = await browser.newPage();
    try {
      await tab.goto(served.origin);
      // No named function inside: tsx would wrap it in a helper the page does not have.
      const outcome = await tab.evaluate(async () =>
        Promise.all(
          ['include', 'omit'].map((credentials) =>
            (window as any).api('GET', '/api/schemas/users', { credentials }).then(
              (res: { status: number }) => `answered ${res.status}`,
              (err: unknown) => String(err),
            ),
          ),
        ),
      );
      expect(outcome).to.deep.equal(['TypeError: Failed to fetch', 'answered 200']);
    } finally {
      await tab.close();
      served.server.close();
    }
  });
});

describe('a web app in a real browser, uploading to the S3 bucket of the stack', function () {
  this.timeout(60_000);
  let app: TestApp;
  let p: AuthProject;
  let browser: Browser;
  let page: Page;
  let appPage: Awaited<ReturnType<typeof servePage>>;

  const call = (method: string, route: string, options: Record<string, unknown> = {}) =>
    callApi(page, method, route, options);

  before(async () => {
    // The internal store is the stack's bucket, whose CORS rules scripts/stack/s3-bucket.mjs sets.
    app = await startTestApp('public', 'browser_s3', { USER_AUTH_SIGNUPS_PER_HOUR: '10000' });
    p = await authProject(app);
    appPage = await servePage(pageHtml(app.url.replace('127.0.0.1', 'localhost'), p.publishableKey));
    p.project = await app.services.projects.update(p.project, {
      settings: { allowedOrigins: [appPage.origin] },
    });
    await app.services.storage.settings.update(p.project, { endUserUploads: true });
    ({ browser, page } = await openPage(appPage.origin));
  });

  after(async () => {
    await browser?.close();
    appPage?.server.close();
    await app?.close();
  });

  it('PUTs the bytes to the presigned bucket URL from the page, then confirms', async () => {
    const created = await call('POST', '/api/userAuth/signup', {
      body: { email: newEmail('s3'), password: PASSWORD },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const token = created.body.data.accessToken as string;
    const content = 'bytes for the bucket';
    const ticket = await call('POST', '/api/storage/upload-request', {
      token,
      body: { filename: 'note.txt', contentType: 'text/plain', size: content.length },
    });
    expect(ticket.status, JSON.stringify(ticket.body)).to.equal(200);
    expect(ticket.body.data.signedUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/baas-test\//);
    // A bucket rule with AllowedOrigins '*' answers without credentials: the upload omits them.
    const put = await call('PUT', ticket.body.data.signedUrl, {
      key: false,
      credentials: 'omit',
      headers: { 'content-type': 'text/plain' },
      raw: content,
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    const confirmed = await call('POST', '/api/storage/upload-confirm', {
      token,
      body: { filePath: ticket.body.data.filePath, size: content.length },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
    expect(confirmed.body.data.size).to.equal(content.length);
  });
});
