// The operator's Plans page in a real browser: every limit of each plan edited in place, a size
// with its unit, a bad value named at its input, the plan of new accounts, each plan's scheduled
// backups (count and period, at desktop and at 390 px), saved and read back after a reload;
// read-only with the file named when PLANS_FILE is set. axe and 390 px on each.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import {
  axeViolations,
  shootFailures,
  startDashboardE2E,
  type DashboardE2E,
} from '../helpers/dashboard-e2e.js';

const MB = 1024 * 1024;

async function signInAs(e2e: DashboardE2E, cookie: string) {
  const [name, value] = cookie.split('=') as [string, string];
  await e2e.context.clearCookies();
  await e2e.context.addCookies([{ name, value, url: e2e.origin }]);
}

async function openPlans(e2e: DashboardE2E, page: Page) {
  await page.goto(`${e2e.origin}/admin/plans`);
  await page.getByRole('heading', { name: 'Plans' }).waitFor();
  const table = page.getByRole('region', { name: 'Limits of each plan' });
  for (const label of ['Free', 'Pro', 'Operator (no plan limits)'])
    await table.getByRole('columnheader', { name: label }).waitFor();
  return table;
}

describe('web dashboard: the operator edits the plans', function () {
  this.timeout(180_000);
  let e2e: DashboardE2E;
  let page: Page;

  before(async () => {
    e2e = await startDashboardE2E('web_operator_plans');
    page = e2e.page;
    await signInAs(e2e, e2e.operator.cookie);
  });
  shootFailures('operator-plans', () => e2e);
  after(() => e2e?.close());

  it('shows every limit of each plan in an input, the operator’s unlimited', async () => {
    const table = await openPlans(e2e, page);
    expect(await page.getByLabel('Free: projectsPerDeveloper').inputValue()).to.equal('2');
    expect(await page.getByLabel('Pro: projectsPerDeveloper').inputValue()).to.equal('20');
    expect(await page.getByLabel('Free: databaseBytes').inputValue()).to.equal('50 MB');
    expect(await page.getByLabel('Free: ownAiKey').inputValue()).to.equal('no');
    await table
      .getByRole('row', { name: /^projectsPerDeveloper/ })
      .getByText('unlimited')
      .waitFor();
    expect(await page.getByLabel('Plan of new accounts').inputValue()).to.equal('free');
    // How long a save takes to reach the other processes, as the API says it (PLANS_REFRESH_MS).
    await page.getByText('every other (public, dashboard, worker) within 5 seconds').waitFor();
    await e2e.checkPage('operator-plans-edit');
  });

  it('names a bad value at its input and saves nothing', async () => {
    await openPlans(e2e, page);
    await page.getByLabel('Free: mailPerMonth').fill('lots');
    await page.getByRole('button', { name: 'Save plans' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Free: mailPerMonth must be a whole number from 0, or unlimited' })
      .waitFor();
    const input = page.getByLabel('Free: mailPerMonth');
    expect(await input.getAttribute('aria-invalid')).to.equal('true');
    expect(await input.evaluate((el) => el === document.activeElement), 'focus on the problem').to.equal(
      true,
    );
    expect(e2e.dashboard.services.plans.get('free').limits.mailPerMonth).to.equal(100);
  });

  it('saves a lowered limit, a size and the plan of new accounts, and shows them after a reload', async () => {
    await openPlans(e2e, page);
    await page.getByLabel('Free: projectsPerDeveloper').fill('1');
    await page.getByLabel('Free: databaseBytes').fill('10 MB');
    await page.getByLabel('Pro: webhooksPerProject').fill('unlimited');
    await page.getByLabel('Free: ownMailKey').selectOption('yes');
    await page.getByLabel('Plan of new accounts').selectOption('pro');
    await page.getByRole('button', { name: 'Save plans' }).click();
    await page.getByRole('status').filter({ hasText: 'Plans saved.' }).waitFor();

    const free = e2e.dashboard.services.plans.get('free').limits;
    expect(free).to.include({ projectsPerDeveloper: 1, databaseBytes: 10 * MB, ownMailKey: true });
    expect(e2e.dashboard.services.plans.defaultPlan).to.equal('pro');

    await page.reload();
    await openPlans(e2e, page);
    expect(await page.getByLabel('Free: projectsPerDeveloper').inputValue()).to.equal('1');
    expect(await page.getByLabel('Free: databaseBytes').inputValue()).to.equal('10 MB');
    expect(await page.getByLabel('Pro: webhooksPerProject').inputValue()).to.equal('unlimited');
    expect(await page.getByLabel('Free: ownMailKey').inputValue()).to.equal('yes');
    expect(await page.getByLabel('Plan of new accounts').inputValue()).to.equal('pro');
  });

  it('shows each plan’s backups in inputs and names a count under 1 at its input, saving nothing', async () => {
    const table = await openPlans(e2e, page);
    expect(await page.getByLabel('Free: backups.kept').inputValue()).to.equal('3');
    expect(await page.getByLabel('Free: backups.every').inputValue()).to.equal('day');
    expect(await page.getByLabel('Pro: backups.kept').inputValue()).to.equal('30');
    expect(await page.getByLabel('Pro: backups.every').inputValue()).to.equal('hour');
    await table
      .getByRole('row', { name: /^backups\.kept/ })
      .getByRole('cell', { name: '30' })
      .last()
      .waitFor();

    await page.getByLabel('Free: backups.kept').fill('0');
    await page.getByRole('button', { name: 'Save plans' }).click();
    await page.getByRole('alert').filter({ hasText: 'Free: backups.kept: At least 1.' }).waitFor();
    const input = page.getByLabel('Free: backups.kept');
    expect(await input.getAttribute('aria-invalid')).to.equal('true');
    expect(await input.evaluate((el) => el === document.activeElement), 'focus on the problem').to.equal(
      true,
    );
    expect(e2e.dashboard.services.plans.get('free').backups).to.deep.equal({ kept: 3, every: 'day' });
    await e2e.checkPage('operator-plans-backups-problem');
  });

  it('saves the backups of the plans and shows them after a reload, at desktop and at 390 px', async () => {
    await openPlans(e2e, page);
    await page.getByLabel('Free: backups.kept').fill('7');
    await page.getByLabel('Free: backups.every').selectOption('hour');
    await page.getByLabel('Pro: backups.kept').fill('12');
    await page.getByRole('button', { name: 'Save plans' }).click();
    await page.getByRole('status').filter({ hasText: 'Plans saved.' }).waitFor();
    const { plans } = e2e.dashboard.services;
    expect(plans.get('free').backups).to.deep.equal({ kept: 7, every: 'hour' });
    expect(plans.get('pro').backups).to.deep.equal({ kept: 12, every: 'hour' });
    expect(plans.get('free').limits.projectsPerDeveloper, 'the limits saved before stay').to.equal(1);

    await page.reload();
    await openPlans(e2e, page);
    expect(await page.getByLabel('Free: backups.kept').inputValue()).to.equal('7');
    expect(await page.getByLabel('Free: backups.every').inputValue()).to.equal('hour');
    expect(await page.getByLabel('Pro: backups.kept').inputValue()).to.equal('12');
    await e2e.checkPage('operator-plans-backups');

    // At a phone's width: the same inputs, reached by the table's own scroll.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await openPlans(e2e, page);
      const period = page.getByLabel('Pro: backups.every');
      await period.scrollIntoViewIfNeeded();
      await period.selectOption('day');
      await page.getByLabel('Pro: backups.kept').fill('2');
      await page.getByRole('button', { name: 'Save plans' }).click();
      await page.getByRole('status').filter({ hasText: 'Plans saved.' }).waitFor();
      expect(plans.get('pro').backups).to.deep.equal({ kept: 2, every: 'day' });
      await page.reload();
      await openPlans(e2e, page);
      expect(await page.getByLabel('Pro: backups.kept').inputValue()).to.equal('2');
      expect(await page.getByLabel('Pro: backups.every').inputValue()).to.equal('day');
      expect(await axeViolations(page), 'axe at 390 px').to.deep.equal([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});

describe('web dashboard: the plans from a file are read-only', function () {
  this.timeout(180_000);
  let e2e: DashboardE2E;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'plans-file-'));
    const file = path.join(dir, 'plans.yaml');
    await writeFile(file, 'plans:\n  free: { projectsPerDeveloper: 1 }\n  pro: {}\n');
    e2e = await startDashboardE2E('web_operator_plans_file', { PLANS_FILE: file });
    await signInAs(e2e, e2e.operator.cookie);
  });
  shootFailures('operator-plans-file', () => e2e);
  after(async () => {
    await e2e?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names the file and offers no input', async () => {
    const page = e2e.page;
    const table = await openPlans(e2e, page);
    await page
      .getByText(`Read from the file ${path.join(dir, 'plans.yaml')} (PLANS_FILE) at start`)
      .waitFor();
    await table.getByRole('row', { name: 'projectsPerDeveloper 1 20 unlimited' }).waitFor();
    await table.getByRole('row', { name: 'backups.kept 3 30 30' }).waitFor();
    await table.getByRole('row', { name: 'backups.every day hour hour' }).waitFor();
    expect(await page.getByRole('textbox').count()).to.equal(0);
    expect(await page.getByRole('spinbutton').count()).to.equal(0);
    expect(await page.getByRole('combobox').count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Save plans' }).count()).to.equal(0);
    await e2e.checkPage('operator-plans-file');
  });
});
