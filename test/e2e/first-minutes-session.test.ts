// A session that ends while a developer types, in a real browser: the draft of the form is kept
// as the log-in page comes, given back to the same developer after logging in again, and never
// shown to another developer who logs in in the same tab.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { contextFor, createDeveloper } from '../helpers/fixtures.js';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { expectNoAxeViolation } from './first-minutes-shared.js';

describe('first minutes: a draft kept across an ended session', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let newDocument: string;

  before(async () => {
    e2e = await startDashboardE2E('first_minutes_session');
    page = e2e.page;
    await e2e.dashboard.services.collections.create(
      contextFor({ developer: e2e.owner.developer }),
      e2e.owner.project.id,
      {
        name: 'notes',
        mode: 'schema',
        fields: [
          { name: 'title', type: 'String', required: true },
          { name: 'body', type: 'String' },
        ],
      },
    );
    newDocument = `${e2e.origin}${e2e.projectPath}/data/notes/new`;
  });
  shootFailures('first-minutes-session', () => e2e);
  after(() => e2e?.close());

  const drafts = () => page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('draft:')));
  /** Types a draft, then the session ends under it and the save is refused. */
  const typeThenLoseSession = async () => {
    await page.goto(newDocument);
    await page.locator('#doc-title').fill('Half a title');
    await page.locator('#doc-body').fill('and half a thought');
    await e2e.context.clearCookies();
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByText('Your session ended. Log in again.').waitFor();
  };
  const logIn = async (email: string, password: string) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  };

  it('9. gives the draft back to the same developer after logging in again', async () => {
    await typeThenLoseSession();
    expect(await drafts()).to.have.length(1);
    await expectNoAxeViolation(page, 'log-in after the session ended');
    await logIn(e2e.owner.developer.email, e2e.owner.password);
    await page.getByRole('heading', { name: 'New document in notes' }).waitFor();
    await page.getByText('Restored what you were typing when your session ended.').waitFor();
    expect(await page.locator('#doc-title').inputValue()).to.equal('Half a title');
    expect(await page.locator('#doc-body').inputValue()).to.equal('and half a thought');
    expect(await drafts(), 'taken once').to.deep.equal([]);
    await e2e.checkPage('first-minutes-draft-restored');
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByRole('heading', { name: /^Document [0-9a-f]{24}$/ }).waitFor();
  });

  it('9. gives a collection being defined back too', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/collections/new`);
    await page.getByLabel('Collection name').fill('drafted');
    await page.locator('#fe-fields-0-name').fill('headline');
    await page.locator('#fe-fields-0-type').selectOption('Number');
    await e2e.context.clearCookies();
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.getByText('Your session ended. Log in again.').waitFor();
    await logIn(e2e.owner.developer.email, e2e.owner.password);
    await page.getByRole('heading', { name: 'New collection' }).waitFor();
    await page.getByText('Restored what you were typing when your session ended.').waitFor();
    expect(await page.getByLabel('Collection name').inputValue()).to.equal('drafted');
    expect(await page.locator('#fe-fields-0-name').inputValue()).to.equal('headline');
    expect(await page.locator('#fe-fields-0-type').inputValue()).to.equal('Number');
  });

  it('9. never shows the draft to another developer logging in in the same tab', async () => {
    await typeThenLoseSession();
    const other = await createDeveloper(e2e.dashboard.services);
    await logIn(other.developer.email, other.password);
    // The other developer is not a member of the project: the draft is dropped unread.
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.waitForFunction(() => !location.pathname.startsWith('/login'));
    expect(await drafts()).to.deep.equal([]);
    expect(await page.getByText('Half a title').count()).to.equal(0);
    expect(e2e.consoleErrors.filter((e) => !/401|404/.test(e))).to.deep.equal([]);
  });
});
