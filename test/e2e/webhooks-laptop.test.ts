// The webhook flow on a developer's laptop, in a real browser: under the development profile
// (NODE_ENV=development, what `npm start` runs) the Webhooks page says so, refuses a metadata or
// private target with a sentence under the URL field, accepts a receiver on http://127.0.0.1, and
// "Send a test event" shows the delivery's outcome on the page as soon as the worker has made it.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startTestWorker } from '../helpers/worker.js';

describe('web dashboard: webhooks on a laptop (development profile)', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let receiver: Receiver;

  before(async () => {
    // No ALLOW_PRIVATE_HOSTS: only the development profile's loopback allowance is at work.
    e2e = await startDashboardE2E('web_wh_laptop', { NODE_ENV: 'development' });
    page = e2e.page;
    worker = await startTestWorker(e2e.dashboard.deps.config.platformDb, { NODE_ENV: 'development' });
    receiver = await startReceiver();
  });
  shootFailures('webhooks-laptop', () => e2e);
  after(async () => {
    await worker?.stop();
    await e2e?.close();
    await receiver?.close();
  });

  const urlError = () => page.locator('#wh-new-url-err');

  it('says the development profile is on, and refuses metadata and private targets under the URL field', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/webhooks`);
    const notice = page.getByTestId('development-profile');
    await notice.waitFor();
    expect(await notice.textContent()).to.include('http://127.0.0.1:PORT/');
    for (const [url, message] of [
      [
        'http://169.254.169.254/latest/meta-data',
        /Use an https:\/\/ address: plain http is accepted only for localhost/,
      ],
      ['https://169.254.169.254/latest/meta-data', /restricted host/],
      ['https://10.0.0.1/in', /restricted host/],
    ] as const) {
      await page.getByLabel('Target URL').fill(url);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await urlError().waitFor();
      await page.waitForFunction(
        ([sel, source]) => new RegExp(source).test(document.querySelector(sel)?.textContent ?? ''),
        ['#wh-new-url-err', message.source] as const,
      );
      expect(await page.getByLabel('Target URL').getAttribute('aria-invalid'), url).to.equal('true');
    }
    expect(await page.getByText('No webhooks yet.').count()).to.equal(1);
  });

  it('adds a receiver on http://127.0.0.1, sends a test event and shows its delivery at once', async () => {
    await page.getByLabel('Target URL').fill(receiver.url('/laptop'));
    await page.getByLabel('Description (optional)').fill('Laptop receiver');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText('shown only this once').waitFor();
    receiver.secret('/laptop', await page.getByTestId('webhook-secret').inputValue());
    await e2e.checkPage('webhooks-laptop');

    await page.getByRole('link', { name: 'Laptop receiver' }).click();
    await page.getByRole('heading', { name: 'Webhook Laptop receiver' }).waitFor();
    await page.getByTestId('development-profile').waitFor();
    const started = Date.now();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const result = page.locator('[data-testid="test-result"][data-status="succeeded"]');
    await result.waitFor({ timeout: 10_000 });
    const shownAfterMs = Date.now() - started;
    expect(await result.textContent()).to.match(/^Test event succeeded: HTTP 200 in \d+ ms$/);
    expect(shownAfterMs, 'shown without a reload').to.be.below(5_000);

    const got = receiver.on('/laptop');
    expect(got).to.have.length(1);
    expect(got[0]!.verified).to.equal(true);
    expect(got[0]!.payload.event).to.equal('webhook.ping');
    const row = page.getByRole('row').filter({ hasText: 'The test you sent' });
    await row.getByRole('cell', { name: 'Succeeded' }).waitFor();
    expect(await row.getByRole('rowheader').textContent()).to.include('webhook.ping');
    await e2e.checkPage('webhook-laptop-test');
  });
});
