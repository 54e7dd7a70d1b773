// The published urBackend browser SDK (@urbackend/sdk 0.4.8), bundled into a page on a loopback
// origin of its own as a new user would build it, run in Chromium against the public API on
// another origin. The SDK sends `credentials: 'include'` on every call. In the development profile
// (`npm start`) a project that lists no origins grants them to loopback pages, so every step
// passes out of the box; with production settings the browser refuses every credentialed answer
// until the origin is listed, and the refusal is noted for the developer with the fix.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { openPage } from '../helpers/browser.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/dashboard-e2e.js';
import { contextFor } from '../helpers/fixtures.js';
import { authProject, newEmail, PASSWORD, type AuthProject } from '../helpers/user-auth.js';
import { failed, runSdk, serveSdkPage, type SdkPage, type SdkStep } from '../helpers/sdk-page.js';

/** Every step the page runs (test/helpers/sdk-page.ts), in order. */
const STEPS = [
  'auth.signUp',
  'auth.login',
  'auth.me',
  'auth.updateProfile',
  'auth.refreshToken',
  'db.insert',
  'db.getAll',
  'db.getOne',
  'db.count',
  'db.update',
  'db.patch',
  'schema.getSchema',
  'storage.upload',
  'storage.deleteFile',
  'db.delete',
  'auth.changePassword',
  'auth.logout',
];

interface Setup {
  app: TestApp;
  p: AuthProject;
  api: string;
  dir: string;
}

/**
 * The public role under `profile` on a fixed port, reached as `localhost` (the page is on
 * 127.0.0.1: another site, as an app and its API usually are), so that the presigned upload URLs
 * the SDK follows point at it; a project with a `notes` collection under RLS and uploads on.
 */
async function setUp(profile: 'development' | 'production', suite: string): Promise<Setup> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baas-sdk-'));
  const port = await freePort();
  const api = `http://localhost:${port}`;
  const app = await startTestApp(
    'public',
    suite,
    {
      NODE_ENV: profile,
      PUBLIC_URL: api,
      S3_BUCKET: '',
      STORAGE_DIR: dir,
      USER_AUTH_SIGNUPS_PER_HOUR: '10000',
    },
    port,
  );
  const p = await authProject(app);
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
  return { app, p, api, dir };
}

const run = (page: Page, { api, p }: Setup, email = newEmail('sdk')) =>
  runSdk(page, {
    api,
    key: p.publishableKey,
    email,
    password: PASSWORD,
    newPassword: `${PASSWORD}-2`,
    collection: 'notes',
  });

const names = (steps: SdkStep[]) => steps.map((s) => s.name);

describe('the published urBackend SDK in a page on another loopback origin', function () {
  this.timeout(120_000);
  let sdkPage: SdkPage;
  let browser: Browser;
  let page: Page;

  before(async () => {
    sdkPage = await serveSdkPage();
    ({ browser, page } = await openPage(sdkPage.origin));
  });

  after(async () => {
    await browser?.close();
    sdkPage?.close();
  });

  describe('under the development profile (npm start)', () => {
    let s: Setup;
    before(async () => {
      s = await setUp('development', 'browser_sdk_dev');
    });
    after(async () => {
      await s?.app.close();
      if (s) await rm(s.dir, { recursive: true, force: true });
    });

    it('passes every step with no origin listed: the loopback page gets credentials', async () => {
      expect(s.p.project.settings.allowedOrigins).to.deep.equal([]);
      const steps = await run(page, s);
      expect(names(steps)).to.deep.equal(STEPS);
      expect(failed(steps)).to.deep.equal([]);
      expect(steps.find((x) => x.name === 'db.getAll')!.detail).to.equal('from the SDK');
    });

    it('still refuses the loopback page once the project lists other origins, as in production', async () => {
      s.p.project = await s.app.services.projects.update(s.p.project, {
        settings: { allowedOrigins: ['https://app.example.com'] },
      });
      try {
        const steps = await run(page, s);
        expect(steps.filter((x) => x.ok).map((x) => x.name)).to.deep.equal([]);
        expect(steps[0]!.detail).to.equal('Failed to fetch (0)');
      } finally {
        s.p.project = await s.app.services.projects.update(s.p.project, { settings: { allowedOrigins: [] } });
      }
    });
  });

  describe('under production settings', () => {
    let s: Setup;
    before(async () => {
      s = await setUp('production', 'browser_sdk_prod');
    });
    after(async () => {
      await s?.app.close();
      if (s) await rm(s.dir, { recursive: true, force: true });
    });

    it('refuses every credentialed call while the origin is not listed, and notes it with the fix', async () => {
      const steps = await run(page, s);
      expect(names(steps)).to.deep.equal(STEPS);
      // The browser refuses each answer: the SDK sees a network failure, the developer nothing.
      expect(steps.filter((x) => x.ok).map((x) => x.name)).to.deep.equal([]);
      expect(steps[0]!.detail).to.equal('Failed to fetch (0)');

      // What the developer sees: the request log's entries say why and how to fix it ...
      await s.app.services.requestLog.flush();
      const ctx = contextFor({ developer: s.p.developer });
      const log = await s.app.services.requestLog.list(ctx, s.p.project.id, { path: '/api/userAuth/signup' });
      const fix = `A page on ${sdkPage.origin} sent credentials; add it to Allowed origins`;
      expect(log.entries.map((e) => e.note ?? '')).to.have.length.greaterThan(0);
      for (const entry of log.entries) expect(entry.note).to.include(fix);
      // ... and the project names the origin, once, for the dashboard (written off the request).
      const noted = async () =>
        (await s.app.services.projects.requireAccess(ctx, s.p.project.id, 'member')).credentialsRefused ?? [];
      for (let i = 0; i < 50 && (await noted()).length === 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect((await noted()).map((n) => n.origin)).to.deep.equal([sdkPage.origin]);
    });

    it('passes every step once the origin is listed', async () => {
      s.p.project = await s.app.services.projects.update(s.p.project, {
        settings: { allowedOrigins: [sdkPage.origin] },
      });
      const steps = await run(page, s);
      expect(names(steps)).to.deep.equal(STEPS);
      expect(failed(steps)).to.deep.equal([]);
    });
  });
});
