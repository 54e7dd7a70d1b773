// A function being written when the session ends, in a real browser: its name, trigger and code
// come back after logging in again, as the document and collection forms do (web/src/drafts.ts),
// for a new function and for the edit form of one; secret values are never kept. Both pages
// point to the CLI for keeping code in git.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { createCollectionFixture } from '../helpers/fixtures.js';

const CODE = `export default async (event, ctx) => {
  ctx.log('draft kept', event.documents.length);
  return null;
};`;

describe('web dashboard: a function draft kept across an ended session', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;

  before(async () => {
    e2e = await startDashboardE2E('web_functions_draft');
    page = e2e.page;
    await createCollectionFixture(e2e.dashboard.services, e2e.owner.project.id, { name: 'posts' });
    await createCollectionFixture(e2e.dashboard.services, e2e.owner.project.id, { name: 'notes' });
  });
  shootFailures('functions-draft', () => e2e);
  after(() => e2e?.close());

  const editor = () => page.getByRole('textbox', { name: 'Code' });
  async function typeCode(text: string) {
    await editor().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(text);
  }
  async function logIn() {
    await page.getByLabel('Email').fill(e2e.owner.developer.email);
    await page.getByLabel('Password').fill(e2e.owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }
  const drafts = () => page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('draft:')));

  it('gives back the name, trigger and code of a new function after logging in again', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/functions`);
    await editor().waitFor();
    await page.getByTestId('git-hint').getByText('mongobaas functions deploy').waitFor();
    await page.locator('#fn-new-name').fill('stampNotes');
    await page.getByLabel('Trigger').selectOption('afterUpdate');
    await page.getByLabel('Collection').selectOption('notes');
    await typeCode(CODE);
    await page.getByRole('button', { name: 'Add a secret' }).click();
    await page.locator('#fn-new-secret-0-name').fill('API_TOKEN');
    await page.locator('#fn-new-secret-0-value').fill('never-stored-value');
    // The session ends under the form: the save is refused and the log-in page comes.
    await e2e.context.clearCookies();
    await page.getByRole('button', { name: 'Add function' }).click();
    await page.getByText('Your session ended. Log in again.').waitFor();
    const kept = await page.evaluate(() =>
      Object.entries(sessionStorage)
        .filter(([k]) => k.startsWith('draft:'))
        .map(([, v]) => v),
    );
    expect(kept).to.have.length(1);
    expect(kept[0]).to.include('stampNotes').and.not.include('never-stored-value');

    await logIn();
    await page.getByRole('heading', { name: 'Functions', level: 1 }).waitFor();
    await page.getByText('Restored what you were typing when your session ended.').waitFor();
    expect(await page.locator('#fn-new-name').inputValue()).to.equal('stampNotes');
    expect(await page.getByLabel('Trigger').inputValue()).to.equal('afterUpdate');
    expect(await page.getByLabel('Collection').inputValue()).to.equal('notes');
    expect(await editor().innerText()).to.include("ctx.log('draft kept'");
    expect(await page.locator('#fn-new-secret-0-name').inputValue()).to.equal('API_TOKEN');
    expect(
      await page.locator('#fn-new-secret-0-value').inputValue(),
      'a secret value is typed again',
    ).to.equal('');
    expect(await drafts(), 'taken once').to.deep.equal([]);
    await e2e.checkPage('functions-draft-restored');

    await page.getByRole('button', { name: 'Drop' }).click();
    await page.getByRole('button', { name: 'Add function' }).click();
    await page.getByRole('heading', { name: 'Function stampNotes' }).waitFor();
  });

  it('reopens the edit form of a function with the code being changed', async () => {
    await page.getByTestId('git-hint').waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    await editor().waitFor();
    await typeCode(CODE.replace('draft kept', 'second thoughts'));
    await e2e.context.clearCookies();
    await page.getByRole('button', { name: 'Save function' }).click();
    await page.getByText('Your session ended. Log in again.').waitFor();
    await logIn();
    await page.getByRole('heading', { name: 'Function stampNotes' }).waitFor();
    await page.getByText('Restored what you were typing when your session ended.').waitFor();
    expect(await editor().innerText()).to.include("ctx.log('second thoughts'");
    await page.getByRole('button', { name: 'Save function' }).click();
    await page.getByText('Saved as version 2, now active.').waitFor();
  });
});
