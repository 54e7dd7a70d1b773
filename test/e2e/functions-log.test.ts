// The invocation log of a function as a developer debugs from it, in a real browser: each row
// names the trigger, the request (method, path, operation, collection, caller) and the outcome
// with the hook's refusal or the error; the last hour's and day's runs, failures and p50/p95 sit
// above; filters by status, trigger and time narrow the rows. axe and 390 px on the page.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { createCollectionFixture } from '../helpers/fixtures.js';

const GUARD = `export default async (event, ctx) => {
  ctx.log('checking', event.operation);
  if (event.documents?.[0]?.title === 'no') return { refuse: { status: 400, code: 'NO_TITLE', message: 'A title of "no" is not a title.' } };
  if (event.documents?.[0]?.title === 'boom') throw new Error('the guard broke');
  return null;
};`;

describe('web dashboard: an invocation log to debug from', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let functionPage: string;

  before(async () => {
    e2e = await startDashboardE2E('web_functions_log');
    page = e2e.page;
    await createCollectionFixture(e2e.dashboard.services, e2e.owner.project.id, { name: 'posts' });
    // A busy machine's cold start must not turn the first run into a timeout.
    await e2e.dashboard.services.repos.projects.setLimits(e2e.owner.project.id, {
      functionDeadlineMs: 15_000,
    });
    const secret = e2e.publicApp.client.with({ 'x-api-key': e2e.owner.secretKey });
    const made = await secret.post('/api/functions', {
      name: 'guard',
      trigger: { type: 'beforeCreate', collection: 'posts' },
      runtime: { type: 'javascript', code: GUARD },
    });
    expect(made.status, made.text).to.equal(201);
    functionPage = `${e2e.origin}${e2e.projectPath}/functions/${made.body.data.function.id}`;
    expect((await secret.post('/api/data/posts', { title: 'yes' })).status).to.equal(201);
    expect((await secret.post('/api/data/posts', { title: 'no' })).status).to.equal(400);
    expect((await secret.post('/api/data/posts', { title: 'boom' })).status).to.equal(503);
    await e2e.publicApp.services.functions.invoker.flushLog();
  });
  shootFailures('functions-log', () => e2e);
  after(() => e2e?.close());

  const rows = () => page.getByRole('region', { name: 'Invocations table' }).locator('tbody tr');

  it('names the request and the outcome of each run, with the figures of the hour and day', async () => {
    await page.goto(functionPage);
    await page.getByRole('heading', { name: 'Invocation log' }).waitFor();
    await rows().nth(2).waitFor();
    expect(await rows().count()).to.equal(3);
    const refused = rows().filter({ hasText: 'Refused' });
    const text = await refused.innerText();
    expect(text).to.include('beforeCreate');
    expect(text).to.include('POST /api/data/posts');
    expect(text).to.include('create · posts');
    expect(text).to.include('by secret key');
    expect(text).to.include('400 NO_TITLE: A title of "no" is not a title.');
    expect(await rows().filter({ hasText: 'Error' }).innerText()).to.include('the guard broke');

    const stats = page.getByTestId('invocation-stats');
    const hour = stats.getByRole('row', { name: /Last hour/ });
    expect((await hour.locator('td').allInnerTexts()).slice(0, 3)).to.deep.equal(['3', '1', '1']);
    expect(await hour.locator('td').nth(3).innerText()).to.match(/^\d+ ms$/);
    expect(
      await stats
        .getByRole('row', { name: /Last day/ })
        .locator('td')
        .first()
        .innerText(),
    ).to.equal('3');
    await e2e.checkPage('function-invocation-log');
  });

  it('filters by status, trigger and time', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByLabel('Status').selectOption('refused');
    await page.waitForFunction(
      () => document.querySelectorAll('[aria-label="Invocations table"] tbody tr').length === 1,
    );
    expect(await rows().first().innerText()).to.include('NO_TITLE');
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForFunction(() =>
      document
        .querySelector('[aria-label="Invocations table"] tbody tr')
        ?.textContent?.includes('the guard broke'),
    );
    expect(await rows().count()).to.equal(1);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Time').selectOption('hour');
    await page.waitForFunction(
      () => document.querySelectorAll('[aria-label="Invocations table"] tbody tr').length === 3,
    );
    await page.getByLabel('Trigger').selectOption('callable');
    await page.getByText('No invocations match these filters.').waitFor();
  });
});
