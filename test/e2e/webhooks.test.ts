// The webhooks pages in a real browser, with the worker's delivery loop and a local receiver: add
// a webhook (its rules checked before sending, the secret shown once), send a test and see its
// delivery fail in the log with status, duration and the receiver's answer, redeliver it once the
// receiver is fixed, disable and enable, rotate the secret, edit, and delete after the dialog.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { startTestWorker } from '../helpers/worker.js';

describe('web dashboard: webhooks', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let receiver: http.Server;
  let receiverUrl: string;
  let answer = { status: 500, body: 'receiver is down for maintenance' };
  let received = 0;

  before(async () => {
    e2e = await startDashboardE2E('web_webhooks', { ALLOW_PRIVATE_HOSTS: 'true' });
    page = e2e.page;
    worker = await startTestWorker(e2e.dashboard.deps.config.platformDb, {
      ALLOW_PRIVATE_HOSTS: 'true',
      // One quick retry: the log shows a failure at once.
      WEBHOOK_RETRY_SCHEDULE: '50ms',
    });
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  shootFailures('webhooks', () => e2e);
  after(async () => {
    await worker?.stop();
    receiver?.close();
    await e2e?.close();
  });

  it('shows no webhooks yet, and checks a new one before sending it', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/webhooks`);
    await page.getByText('No webhooks yet.').waitFor();
    await e2e.checkPage('webhooks-empty');
    await page.getByLabel('document.created').uncheck();
    await page.getByLabel('Only these collections (optional)').fill('posts, 9lives');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const errors = page.locator('.field-error');
    await errors.first().waitFor();
    expect(await errors.allTextContents()).to.deep.equal([
      'Required.',
      'Choose at least one.',
      'Start with a letter; letters, digits, - and _ only (at most 64).',
    ]);
    expect(await page.locator('div.error').count(), 'no banner repeating them').to.equal(0);
  });

  it('adds a webhook and shows its signing secret once', async () => {
    await page.getByLabel('Target URL').fill(receiverUrl);
    await page.getByLabel('Description (optional)').fill('Search indexer');
    await page.getByLabel('document.created').check();
    await page.getByLabel('Only these collections (optional)').fill('posts');
    expect(await page.locator('.field-error').count(), 'the messages went as the fields were fixed').to.equal(
      0,
    );
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText('shown only this once').waitFor();
    expect(await page.getByTestId('webhook-secret').inputValue()).to.match(/^whsec_/);
    const row = page.getByRole('row').filter({ hasText: 'Search indexer' });
    expect(await row.getByRole('cell').allTextContents()).to.deep.equal(['document.created', 'Enabled']);
    await page.getByText('1 of').waitFor();
    await e2e.checkPage('webhooks');
  });

  it('sends a test and shows its failed delivery: status, duration and the answer', async () => {
    await page.getByRole('link', { name: 'Search indexer' }).click();
    await page.getByRole('heading', { name: 'Webhook Search indexer' }).waitFor();
    await page.getByText('No deliveries yet.').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('status').filter({ hasText: 'Test event queued' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'The test you sent' });
    await row.getByRole('cell', { name: 'Failed' }).waitFor({ timeout: 15_000 });
    expect(await row.getByRole('rowheader').textContent()).to.include('webhook.ping');
    await row.getByText('2 attempts').click();
    const attempts = row.locator('.attempts li');
    for (const attempt of await attempts.all()) {
      expect(await attempt.textContent()).to.match(/HTTP 500 · \d+ ms/);
      expect(await attempt.locator('.excerpt').textContent()).to.equal('receiver is down for maintenance');
    }
    await e2e.checkPage('webhook-deliveries');
  });

  it('redelivers once the receiver answers', async () => {
    answer = { status: 200, body: 'ok' };
    const before = received;
    await page.getByRole('button', { name: /^Redeliver webhook\.ping/ }).click();
    await page.getByRole('status').filter({ hasText: 'Delivery of webhook.ping queued again.' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'webhook.ping' }).first();
    await row.getByRole('cell', { name: 'Succeeded' }).waitFor({ timeout: 15_000 });
    expect(received).to.be.above(before);
  });

  it('disables and enables, rotates the secret after the dialog, and edits', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook disabled' }).waitFor();
    await page.getByText('Disabled', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook enabled.' }).waitFor();

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page
      .getByRole('alertdialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    await page.getByRole('status').filter({ hasText: 'New secret made' }).waitFor();
    expect(await page.getByTestId('webhook-secret').inputValue()).to.match(/^whsec_/);

    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: 'Edit' });
    await edit.getByLabel('document.updated').check();
    await edit.getByLabel('Description (optional)').fill('Indexer v2');
    await edit.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook saved.' }).waitFor();
    await page.getByRole('heading', { name: 'Webhook Indexer v2' }).waitFor();
    const res = await e2e.context.request.get(`${e2e.origin}/api${e2e.projectPath}/webhooks`);
    const [stored] = (await res.json()).data.webhooks;
    expect(stored).to.deep.include({ description: 'Indexer v2', enabled: true });
    expect(stored.events).to.deep.equal(['document.created', 'document.updated']);
  });

  it('deletes the webhook after the dialog', async () => {
    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete this webhook?' })
      .getByRole('button', { name: 'Delete webhook' })
      .click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
