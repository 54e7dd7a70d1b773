// The request log page in a real browser: the project's public API requests listed newest first
// with their status, key kind and end user; filters on status class and path, kept in the URL;
// the empty and no-match states; axe-core and a phone-width pass.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createCollectionFixture, userToken } from '../helpers/fixtures.js';
import { newId } from '../../src/db/ids.js';
import { checkAxe, shot, sidewaysOverflow, startRig, type DataBrowserRig } from './data-shared.js';

describe('request log page in a real browser', function () {
  this.timeout(120_000);
  let rig: DataBrowserRig;
  let page: Page;
  let logUrl: string;
  const rows = () => page.locator('.request-log tbody tr');

  before(async () => {
    rig = await startRig('data_request_log');
    page = rig.page;
    await createCollectionFixture(rig.dashboard.services, rig.fx.project.id, { name: 'posts' });
    logUrl = `${rig.origin}/projects/${rig.fx.project.id}/logs`;
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await shot(page, 'failed-request-log').catch(() => undefined);
  });
  after(() => rig?.close());

  it('says when nothing was logged yet', async () => {
    await page.goto(logUrl);
    await page.getByText('No requests logged yet.').waitFor();
    await checkAxe(page, 'request log (empty)');
  });

  it('lists requests and filters them by status and path, kept across reload and Back', async () => {
    const secret = rig.publicApp.client.with({ 'x-api-key': rig.fx.secretKey });
    const userId = newId();
    const token = await userToken(rig.publicApp.services, rig.fx.project.id, userId);
    await secret.post('/api/data/posts', { title: 'One' });
    await rig.publicApp.client
      .with({ 'x-api-key': rig.fx.publishableKey, authorization: `Bearer ${token}` })
      .get('/api/data/posts');
    await secret.get('/api/data/posts/000000000000000000000000');
    await secret.get('/api/data/nothing');
    await rig.publicApp.services.requestLog.flush();

    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('cell', { name: '/api/data/posts/000000000000000000000000' }).waitFor();
    expect(await rows().count()).to.equal(4);
    const userRow = rows().filter({ hasText: userId });
    expect(await userRow.locator('td').allTextContents()).to.include.members([
      'GET',
      '/api/data/posts',
      '200',
      'publishable',
    ]);
    await checkAxe(page, 'request log');
    await shot(page, 'request-log');

    await page.getByLabel('Status').selectOption('4xx');
    await page.waitForURL(/status=4xx/);
    await page.waitForFunction(() => document.querySelectorAll('.request-log tbody tr').length === 2);
    const statuses = await page.locator('.request-log tbody td.status-4xx').allTextContents();
    expect(statuses).to.deep.equal(['404', '404']);

    await page.getByLabel('Path starts with').fill('/api/data/posts');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/path=%2Fapi%2Fdata%2Fposts/);
    await page.waitForFunction(() => document.querySelectorAll('.request-log tbody tr').length === 1);
    expect(await rows().first().textContent()).to.include('/api/data/posts/000000000000000000000000');
    await page.reload();
    await page.getByRole('cell', { name: '/api/data/posts/000000000000000000000000' }).waitFor();
    expect(await rows().count()).to.equal(1);
    expect(await page.getByLabel('Path starts with').inputValue()).to.equal('/api/data/posts');

    await page.getByLabel('Path starts with').fill('/api/storage');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No request matches these filters.').waitFor();
    await checkAxe(page, 'request log (no match)');
    await page.goBack();
    await page.getByRole('cell', { name: '/api/data/posts/000000000000000000000000' }).waitFor();
    expect(await page.getByLabel('Path starts with').inputValue()).to.equal('/api/data/posts');
  });

  it('fits a phone: the table scrolls inside its box', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(logUrl);
    await page.getByRole('cell', { name: '/api/data/nothing' }).waitFor();
    expect(await sidewaysOverflow(page)).to.be.at.most(0);
    await checkAxe(page, 'request log at phone width');
    await shot(page, 'phone-request-log');
    expect(rig.consoleErrors).to.deep.equal([]);
  });
});
