// The operator's area in a real browser: driven as the operator (overview, developers, projects
// and their overrides, plans, the outbox's mails), refused to another developer and to a member
// of a project (a 403 page, no link); axe and the 390 px pass on each page.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { createDeveloper, createProjectFixture } from '../helpers/fixtures.js';

describe('web dashboard: the operator’s area', function () {
  this.timeout(180_000);
  let e2e: DashboardE2E;
  let page: Page;
  let dir: string;

  /** The browser's session becomes this cookie's. */
  const signInAs = async (cookie: string) => {
    const [name, value] = cookie.split('=') as [string, string];
    await e2e.context.clearCookies();
    await e2e.context.addCookies([{ name, value, url: e2e.origin }]);
  };
  const operatorLink = () =>
    page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Operator', exact: true });

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'operator-outbox-'));
    // Mail goes to a folder, as in the development profile, so the Mail page has mails to show.
    e2e = await startDashboardE2E('web_operator', { SMTP_URL: '', MAIL_OUTBOX_DIR: dir });
    page = e2e.page;
    await signInAs(e2e.operator.cookie);
  });
  shootFailures('operator', () => e2e);
  after(async () => {
    await e2e?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('shows the installation: parts with their settings, health and the worker jobs', async () => {
    await page.goto(`${e2e.origin}/`);
    await operatorLink().click();
    await page.getByRole('heading', { name: 'Installation' }).waitFor();
    const parts = page.getByRole('region', { name: 'Parts in use' });
    await parts.getByRole('row', { name: /cache Redis REDIS_URL/ }).waitFor();
    await parts.getByRole('row', { name: /mail written to the folder .* SMTP_URL/ }).waitFor();
    expect(await page.getByTestId('health').textContent()).to.match(/^OK: database up, cache up/);
    await page
      .getByRole('region', { name: 'Worker jobs' })
      .getByRole('row', { name: /trash-purge hourly/ })
      .waitFor();
    await e2e.checkPage('operator-overview');
  });

  it('finds a developer, changes the plan, disables and enables, and deletes one with its projects', async () => {
    const leaving = await createProjectFixture(e2e.dashboard.services, 'Temp shop');
    await page.goto(`${e2e.origin}/admin/developers`);
    await page.getByRole('heading', { name: 'Developers' }).waitFor();
    const owner = e2e.owner.developer.email;
    await page.getByLabel('Search by email or name').fill(owner);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: owner }) });
    await row.waitFor();
    // The search narrows the list to the owner (the previous list stays shown while it loads).
    await page
      .getByRole('region', { name: 'Developer accounts' })
      .getByRole('rowheader', { name: /operator@example.test/ })
      .waitFor({ state: 'detached' });
    expect(await page.getByRole('region', { name: 'Developer accounts' }).getByRole('row').count()).to.equal(
      2,
    );
    await row.getByLabel(`Plan of ${owner}`).selectOption('pro');
    await page
      .getByRole('status')
      .filter({ hasText: `${owner} is now on pro.` })
      .waitFor();
    expect((await e2e.dashboard.services.repos.developers.findById(e2e.owner.developer.id))!.plan).to.equal(
      'pro',
    );
    await row.getByRole('button', { name: `Disable ${owner}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${owner} is disabled.` })
      .waitFor();
    await row.getByText('Disabled', { exact: true }).waitFor();
    await row.getByRole('button', { name: `Enable ${owner}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${owner} is enabled.` })
      .waitFor();

    await page.getByLabel('Search by email or name').fill('');
    const gone = leaving.developer.email;
    await page.getByRole('button', { name: `Delete ${gone}` }).click();
    const dialog = page.getByRole('alertdialog', { name: `Delete ${gone}?` });
    await dialog
      .getByText(
        'and the 1 project it owns with all their documents, files and backups. It cannot be undone.',
        {
          exact: false,
        },
      )
      .waitFor();
    await dialog.getByLabel(`Type ${gone} to confirm`).fill(gone);
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${gone} is deleted, with Temp shop.` })
      .waitFor();
    expect(await e2e.dashboard.services.repos.projects.findById(leaving.project.id)).to.equal(undefined);
    // The operator's own row: no plan limits, nothing to change.
    const own = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /operator@example.test/ }) });
    await own.getByText('No plan limits').waitFor();
    expect(await own.getByRole('button').count()).to.equal(0);
    await e2e.checkPage('operator-developers');
  });

  it('lists every project with its owner and usage, and sets a per-project override', async () => {
    await page.goto(`${e2e.origin}/admin/projects`);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'Shop', exact: true }) });
    await row.getByText(e2e.owner.developer.email).waitFor();
    await row.getByText('0 of 200').waitFor(); // collections of Pro, the owner's plan now
    await row.getByText('None for Shop').click();
    await row.getByLabel('Limit').selectOption('collectionsPerProject');
    await row.getByLabel('Value').fill('12');
    await row.getByRole('button', { name: 'Set override' }).click();
    await page.getByRole('status').filter({ hasText: 'Shop: collectionsPerProject is now 12.' }).waitFor();
    await row.getByText('0 of 12').waitFor();
    const stored = await e2e.dashboard.services.repos.projects.findById(e2e.owner.project.id);
    expect(stored!.limits).to.deep.equal({ collectionsPerProject: 12 });
    await e2e.checkPage('operator-projects');
  });

  it('shows the plans in force with every limit, unlimited where so', async () => {
    await page.goto(`${e2e.origin}/admin/plans`);
    await page.getByRole('heading', { name: 'Plans' }).waitFor();
    const table = page.getByRole('region', { name: 'Limits of each plan' });
    for (const label of ['Free', 'Pro', 'Operator (no plan limits)'])
      await table.getByRole('columnheader', { name: label }).waitFor();
    // Edited in place without PLANS_FILE (test/e2e/operator-plans.test.ts drives the edit).
    expect(await page.getByLabel('Free: projectsPerDeveloper').inputValue()).to.equal('2');
    await table
      .getByRole('row', { name: /^projectsPerDeveloper/ })
      .getByText('unlimited')
      .waitFor();
    await page
      .getByText('The spec’s Free and Pro, with the limits and backups set here', { exact: false })
      .waitFor();
    await e2e.checkPage('operator-plans');
  });

  it('reads the outbox folder’s mails, the sign-up link included', async () => {
    const email = `newcomer-${Date.now()}@example.test`;
    const started = await fetch(`${e2e.origin}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: e2e.origin },
      body: JSON.stringify({ email, password: 'correct horse battery staple' }),
    });
    expect(started.status).to.equal(201);
    await page.goto(`${e2e.origin}/admin/mail`);
    await page.getByRole('heading', { name: 'Mail', exact: true }).waitFor();
    const mail = page.getByRole('article').filter({ hasText: `To ${email}` });
    await mail.waitFor();
    await mail.getByRole('link', { name: /\/signup\/confirm\?token=/ }).waitFor();
    await e2e.checkPage('operator-mail');
  });

  it('tells the operator, on a Free owner’s project, where to lift a Pro feature, never to ask the operator', async () => {
    const free = await createProjectFixture(e2e.dashboard.services, 'Free shop');
    await e2e.dashboard.services.repos.projects.addMember(
      free.project.id,
      e2e.operator.developer.id,
      'admin',
    );
    await page.goto(`${e2e.origin}/projects/${free.project.id}/storage`);
    const note = page.getByText('Your own bucket needs the Pro plan.', { exact: false });
    await note.waitFor();
    expect(await note.textContent()).to.match(
      /move them to Pro on Operator › Developers, or lift this project’s limit/,
    );
    expect(await page.getByRole('main').textContent()).not.to.include('ask the operator');
    await page.getByRole('main').getByRole('link', { name: 'Operator › Developers' }).click();
    await page.getByRole('heading', { name: 'Developers' }).waitFor();
  });

  it('refuses the area to another developer and to a member: a 403 page and no link', async () => {
    // The owner's sessions ended when the account was disabled above: another developer anew.
    const other = await createProjectFixture(e2e.dashboard.services, 'Other');
    const member = await createDeveloper(e2e.dashboard.services);
    await e2e.dashboard.services.repos.projects.addMember(other.project.id, member.developer.id, 'member');
    for (const [who, cookie] of [
      ['another developer', other.cookie],
      ['a member', member.cookie],
    ] as const) {
      await signInAs(cookie);
      await page.goto(`${e2e.origin}/`);
      await page
        .getByRole('navigation', { name: 'Account' })
        .getByRole('link', { name: 'Projects' })
        .waitFor();
      expect(await operatorLink().count(), `no link for ${who}`).to.equal(0);
      for (const route of ['/admin', '/admin/developers', '/admin/mail']) {
        await page.goto(`${e2e.origin}${route}`);
        await page.getByRole('heading', { name: '403: for the operator only' }).waitFor();
        expect(await page.getByRole('table').count(), `${who} on ${route}`).to.equal(0);
      }
    }
    await e2e.checkPage('operator-403');
    await signInAs(e2e.operator.cookie);
  });
});
