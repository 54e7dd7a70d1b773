// The installation's own plans in a real browser: an account on the highest plan of the plan
// file, its label shown, and no "x of N" where that plan has no limit.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('web dashboard: the installation’s plans', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'plans-e2e-'));
    const file = path.join(dir, 'plans.yaml');
    await writeFile(
      file,
      'plans:\n  free: {}\n  team:\n    extends: pro\n    label: Team\n    projectsPerDeveloper: unlimited\n    collectionsPerProject: unlimited\n    webhooksPerProject: 30\n',
    );
    e2e = await startDashboardE2E('web_plans', { PLANS_FILE: file });
    await e2e.dashboard.services.repos.developers.setPlan(e2e.owner.developer.id, 'team');
    page = e2e.page;
  });
  shootFailures('plans', () => e2e);
  after(async () => {
    await e2e?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('shows the plan by its label and no limit where the plan has none', async () => {
    await page.goto(`${e2e.origin}/account`);
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    await page.getByText('Team', { exact: true }).waitFor();
    await page.goto(`${e2e.origin}/projects`);
    await page.getByRole('heading', { name: 'New project' }).waitFor();
    await page.getByRole('link', { name: 'Shop' }).first().waitFor();
    expect(await page.getByTestId('project-limit').count(), 'no "1 of N projects"').to.equal(0);
    await page.goto(`${e2e.origin}${e2e.projectPath}/collections`);
    await page.getByRole('heading', { name: 'Collections' }).waitFor();
    expect(await page.getByTestId('collection-limit').count()).to.equal(0);
    await page.goto(`${e2e.origin}${e2e.projectPath}/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByText('0 of 30 webhooks of this project’s plan.').waitFor();
    await e2e.checkPage('plans-webhooks');
  });
});
