// A new user's app on the published urBackend SDK, on an origin the project does not list (the
// test profile, as production: no loopback grant): every call is refused by the browser. The
// dashboard then says so on the project overview, in Settings and in the request log, in the words
// that fix it, and a button adds the origin once confirmed; the same page then works. Desktop and
// phone width.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { contextFor } from '../helpers/fixtures.js';
import { newEmail, PASSWORD, USER_FIELDS } from '../helpers/user-auth.js';
import { failed, runSdk, serveSdkPage, type SdkPage } from '../helpers/sdk-page.js';

describe('web dashboard: a page refused credentials', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let app: Page;
  let sdkPage: SdkPage;
  let api: string;
  const sentence = () => `A page on ${sdkPage.origin} sent credentials; add it to Allowed origins.`;
  const sdkRun = () =>
    runSdk(app, {
      api,
      key: e2e.owner.publishableKey,
      email: newEmail('e2e-sdk'),
      password: PASSWORD,
      newPassword: `${PASSWORD}-2`,
      collection: 'notes',
    });

  before(async () => {
    e2e = await startDashboardE2E('web_credentials_refused', { USER_AUTH_SIGNUPS_PER_HOUR: '10000' });
    page = e2e.page;
    const { services } = e2e.dashboard;
    const ctx = contextFor({ developer: e2e.owner.developer });
    await services.collections.create(ctx, e2e.owner.project.id, {
      name: 'users',
      mode: 'schema',
      fields: USER_FIELDS,
    });
    await services.collections.create(ctx, e2e.owner.project.id, {
      name: 'notes',
      mode: 'schema',
      fields: [
        { name: 'text', type: 'String', required: true },
        { name: 'userId', type: 'String' },
      ],
      rls: { enabled: true, mode: 'private', ownerField: 'userId' },
    });
    await services.storage.settings.update(e2e.owner.project, { endUserUploads: true });
    // The API as `localhost`, the app on 127.0.0.1: another site, as an app and its API usually are.
    api = e2e.publicApp.url.replace('127.0.0.1', 'localhost');
    sdkPage = await serveSdkPage();
    app = await e2e.context.newPage();
    await app.goto(sdkPage.origin);
  });
  shootFailures('credentials-refused', () => e2e);
  after(async () => {
    sdkPage?.close();
    await e2e?.close();
  });

  it('names the refused origin on the overview, in words that fix it', async () => {
    const steps = await sdkRun();
    expect(steps.filter((s) => s.ok).map((s) => s.name)).to.deep.equal([]);
    // The origin is written off the request: reload until the overview shows it.
    const warning = page.getByTestId('credentials-refused');
    for (let i = 0; i < 20; i++) {
      await page.goto(`${e2e.origin}${e2e.projectPath}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (await warning.isVisible()) break;
      await page.waitForTimeout(250);
    }
    await warning.getByText(sentence()).waitFor();
    await warning.getByRole('button', { name: `Add to Allowed origins: ${sdkPage.origin}` }).waitFor();
    await e2e.checkPage('credentials-refused-overview');
  });

  it('says the same, with the fix, in the request log', async () => {
    await e2e.publicApp.services.requestLog.flush();
    await page.goto(`${e2e.origin}${e2e.projectPath}/logs`);
    const note = page
      .locator('.log-note')
      .filter({ hasText: `A page on ${sdkPage.origin} sent credentials` });
    await note.first().waitFor();
    expect(await note.first().textContent()).to.include('add it to Allowed origins (project Settings)');
    await e2e.checkPage('credentials-refused-logs');
  });

  it('adds the origin from Settings in one click, after which the page works', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/settings`);
    const warning = page.getByTestId('credentials-refused');
    await warning.getByText(sentence()).waitFor();
    expect(await page.getByLabel('Allowed origins (one per line)').inputValue()).to.equal('');
    await e2e.checkPage('credentials-refused-settings');

    await page.setViewportSize({ width: 390, height: 844 });
    await warning.getByRole('button', { name: `Add to Allowed origins: ${sdkPage.origin}` }).click();
    // Anyone can claim an origin: the dialog asks whether it is the developer's app.
    const dialog = page.getByRole('alertdialog', { name: `Add ${sdkPage.origin} to Allowed origins?` });
    await dialog.getByText('Only if it is your app').waitFor();
    await dialog.getByRole('button', { name: 'Add origin' }).click();
    await warning.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Allowed origins (one per line)').inputValue()).to.equal(sdkPage.origin);
    await page.setViewportSize({ width: 1280, height: 900 });

    const saved = await e2e.dashboard.services.projects.requireAccess(
      contextFor({ developer: e2e.owner.developer }),
      e2e.owner.project.id,
      'admin',
    );
    expect(saved.settings.allowedOrigins).to.deep.equal([sdkPage.origin]);
    // The public role reads the project through its cache, which the update invalidated.
    const steps = await sdkRun();
    expect(failed(steps)).to.deep.equal([]);
    // Back on the overview, nothing is left to fix.
    await page.goto(`${e2e.origin}${e2e.projectPath}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await warning.count()).to.equal(0);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
