// The SDK in a real browser (Debian's Chromium through playwright-core), bundled as the one ES
// module the installation serves, on a page of another origin than the API, with the publishable
// key and nothing configured for that origin: sign-up kept in localStorage, a list, a realtime
// event after a write made with the secret key, an upload with progress read back, a callable, and
// 10 parallel requests with an expired token that make one refresh call.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { bundleSdk } from '../../sdk/bundle.js';
import { storageSettingsRepo } from '../../src/db/storage-settings.js';
import { launchBrowser } from '../helpers/browser.js';
import type { TestApp } from '../helpers/app.js';
import { startSdkApp, type SdkApp } from '../helpers/sdk-app.js';
import type { AuthProject } from '../helpers/user-auth.js';

async function serveApp(sdkCode: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/mongobaas.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(sdkCode);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>sdk app</title></head><body>
<script type="module">import * as sdk from '/mongobaas.js'; window.sdk = sdk; document.title = 'ready';</script>
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('SDK (mongobaas-js) in a browser page on another origin', function () {
  this.timeout(90_000);
  let app: TestApp;
  let p: AuthProject;
  let sdkApp: SdkApp;
  let browser: Browser;
  let page: Page;
  let site: Awaited<ReturnType<typeof serveApp>>;
  const refreshCalls: string[] = [];

  before(async () => {
    sdkApp = await startSdkApp('sdk_browser', {
      mode: 'flexible',
      fields: [{ name: 'title', type: 'String', required: true }],
    });
    ({ app, p } = sdkApp);
    const made = await fetch(`${app.url}/api/functions`, {
      method: 'POST',
      headers: { 'x-api-key': p.secretKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'double',
        trigger: { type: 'callable', access: 'user' },
        runtime: {
          type: 'javascript',
          code: 'export default async (event) => ({ twice: event.body.n * 2 })',
        },
      }),
    });
    expect(made.status).to.equal(201);
    site = await serveApp(await bundleSdk());
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('request', (request) => {
      if (request.url().endsWith('/api/userAuth/refresh-token') && request.method() === 'POST') {
        refreshCalls.push(request.url());
      }
    });
    // tsx names the test's arrow functions with a helper (`__name`) that a page does not have.
    await page.addInitScript('window.__name = (fn) => fn');
    await page.goto(site.origin);
    await page.waitForFunction(() => document.title === 'ready');
    await page.evaluate(
      ([url, key]) => {
        const w = window as any;
        w.client = w.sdk.createClient(url, key);
      },
      [app.url, p.publishableKey] as const,
    );
  });
  after(async () => {
    await browser?.close();
    if (site) await new Promise((resolve) => site.server.close(resolve));
    await sdkApp?.close();
  });

  it('signs up and keeps the session in localStorage', async () => {
    const answer = await page.evaluate(async () => {
      const { client } = window as any;
      const session = await client.auth.signUp({
        email: 'page@example.com',
        password: 'correct horse battery',
      });
      return {
        email: session.user.email,
        stored: Object.keys(localStorage).filter((k) => k.startsWith('mongobaas.')),
      };
    });
    expect(answer.email).to.equal('page@example.com');
    expect(answer.stored).to.have.length(1);
  });

  it('writes and lists as the signed-in user', async () => {
    const titles = await page.evaluate(async () => {
      const todos = (window as any).client.collection('todos');
      await todos.createMany([{ title: 'b' }, { title: 'a' }]);
      return (await todos.list({ sort: 'title' })).data.map((t: { title: string }) => t.title);
    });
    expect(titles).to.deep.equal(['a', 'b']);
  });

  it('sees a realtime event for a write made with the secret key', async () => {
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const w = window as any;
          w.events = [];
          w.sub = w.client.subscribe('todos', {
            filter: { title: { regex: '^live' } },
            onEvent: (event: unknown) => w.events.push(event),
            onReady: resolve,
          });
        }),
    );
    const res = await fetch(`${app.url}/api/data/todos`, {
      method: 'POST',
      headers: { 'x-api-key': p.secretKey, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'live one', userId: 'x' }),
    });
    expect(res.status).to.equal(201);
    await page.waitForFunction(() => (window as any).events.length > 0);
    const event = await page.evaluate(() => {
      const w = window as any;
      w.sub.close();
      return w.events[0];
    });
    expect(event.type).to.equal('document.created');
    expect(event.document.title).to.equal('live one');
  });

  it('uploads a file with progress and reads it back', async () => {
    // The developer lets end users upload (the dashboard's Storage page).
    await storageSettingsRepo(app.deps.db.platform).setEndUserUploads(p.project.id, true);
    const file = await page.evaluate(async () => {
      const { client } = window as any;
      const progress: number[] = [];
      const blob = new Blob(['bytes from the page'], { type: 'text/plain' });
      const stored = await client.storage.upload(blob, {
        filename: 'page.txt',
        onProgress: (sent: number) => progress.push(sent),
      });
      return { ...stored, progress };
    });
    expect(file.size).to.equal('bytes from the page'.length);
    expect(file.progress.at(-1)).to.equal(file.size);
    expect(await (await fetch(file.url)).text()).to.equal('bytes from the page');
  });

  it('calls a function for the signed-in user', async () => {
    const answer = await page.evaluate(() => (window as any).client.functions.call('double', { n: 21 }));
    expect(answer).to.deep.equal({ twice: 42 });
  });

  it('makes one refresh call for 10 parallel requests with an expired access token', async () => {
    const session = await page.evaluate(() => (window as any).client.auth.getSession());
    const expired = await app.services.tokens.issue(p.project.id, session.user._id, -30);
    refreshCalls.length = 0;
    const users = await page.evaluate(
      async ([url, key, stale]) => {
        const { sdk } = window as any;
        const store = sdk.memoryStore();
        store.set('stale', JSON.stringify(stale));
        const client = sdk.createClient(url, key, { store, storageKey: 'stale' });
        const answers = await Promise.all(Array.from({ length: 10 }, () => client.auth.getUser()));
        return answers.map((user: { _id: string }) => user._id);
      },
      [
        app.url,
        p.publishableKey,
        { ...session, accessToken: expired.accessToken, expiresAt: Date.now() + 600_000 },
      ] as const,
    );
    expect(new Set(users)).to.deep.equal(new Set([session.user._id]));
    expect(refreshCalls).to.have.length(1);
  });
});
