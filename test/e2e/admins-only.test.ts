// Admin-only pages opened by their address as a member of the project: each says what only admins
// can do there and shows no control (API keys offered "Rotate publishable key" and Webhooks its
// form, both failing with "Project not found or access denied"); the admin still gets them.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { createDeveloper } from '../helpers/fixtures.js';

const PAGES: [string, string, RegExp][] = [
  ['/keys', 'API keys', /^Only admins can see or rotate this project’s API keys\./],
  ['/webhooks', 'Webhooks', /^Only admins can see, add, test or delete this project’s webhooks\./],
  ['/mail', 'Mail', /^Only admins can change this project’s mail server and templates\./],
  ['/storage', 'Storage', /^Only admins can change where this project’s files are stored\./],
  ['/database', 'Database', /^Only admins can connect this project to a database of its own\./],
  ['/backups', 'Backups', /^Only admins can make, download or restore this project’s backups\./],
  ['/settings', 'Settings', /^Only admins can change this project’s settings\./],
];

describe('web dashboard: admin-only pages opened by a member', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;

  before(async () => {
    e2e = await startDashboardE2E('web_admins_only');
    page = e2e.page;
  });
  shootFailures('admins-only', () => e2e);
  after(() => e2e?.close());

  it('shows the admin the controls, and a member only what admins can do there', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/keys`);
    await page.getByRole('button', { name: /Rotate publishable key/ }).waitFor();

    const member = await createDeveloper(e2e.dashboard.services);
    await e2e.dashboard.services.repos.projects.addMember(
      e2e.owner.project.id,
      member.developer.id,
      'member',
    );
    const [name, value] = member.cookie.split('=') as [string, string];
    await e2e.context.clearCookies();
    await e2e.context.addCookies([{ name, value, url: e2e.origin }]);
    for (const [path, title, words] of PAGES) {
      await page.goto(`${e2e.origin}${e2e.projectPath}${path}`);
      const main = page.getByRole('main');
      await main.getByRole('heading', { name: title, exact: true }).waitFor();
      expect(await main.getByTestId('member-note').textContent(), path).to.match(words);
      expect(await main.getByRole('button').count(), `no button on ${path}`).to.equal(0);
      expect(await main.getByRole('textbox').count(), `no field on ${path}`).to.equal(0);
    }
    await page.goto(`${e2e.origin}${e2e.projectPath}/webhooks/65f1c2a4b7e8d90012345678`);
    await page.getByTestId('member-note').waitFor();
    await e2e.checkPage('member-admins-only-keys');
  });
});
