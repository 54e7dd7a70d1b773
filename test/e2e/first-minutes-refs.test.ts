// Refs in a developer's first minutes, in a real browser: the grid names a referenced document by
// its display field (the target's first String field, or the one chosen), linked to it with the
// id on hover; the Ref and owner pickers' lists are readable (axe's contrast check on them open).
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { contextFor } from '../helpers/fixtures.js';
import { USER_BASE_FIELDS } from '../helpers/user-auth.js';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('first minutes: Refs and pickers', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let base: string;
  let ada: string;

  before(async () => {
    e2e = await startDashboardE2E('first_minutes_refs');
    page = e2e.page;
    const ctx = contextFor({ developer: e2e.owner.developer });
    const create = (def: Parameters<typeof e2e.dashboard.services.collections.create>[2]) =>
      e2e.dashboard.services.collections.create(ctx, e2e.owner.project.id, def);
    await create({ name: 'users', mode: 'schema', fields: USER_BASE_FIELDS });
    await create({
      name: 'authors',
      mode: 'schema',
      fields: [
        { name: 'name', type: 'String' },
        { name: 'email', type: 'String' },
      ],
    });
    await create({
      name: 'books',
      mode: 'schema',
      fields: [
        { name: 'title', type: 'String' },
        { name: 'author', type: 'Ref', ref: 'authors' },
      ],
    });
    await create({
      name: 'diaries',
      mode: 'schema',
      fields: [{ name: 'writer', type: 'String' }],
      rls: { enabled: true, mode: 'private', ownerField: 'writer' },
    });
    const secret = e2e.publicApp.client.with({ 'x-api-key': e2e.owner.secretKey });
    ada = (await secret.post('/api/data/authors', { name: 'Ada Lovelace', email: 'ada@example.test' })).body
      .data._id;
    const made = await secret.post('/api/data/books', { title: 'Notes', author: ada });
    expect(made.status, made.text).to.equal(201);
    const signup = await e2e.publicApp.client
      .with({ 'x-api-key': e2e.owner.publishableKey })
      .post('/api/userAuth/signup', { email: 'alice@example.test', password: 'correct horse battery' });
    expect(signup.status, signup.text).to.equal(201);
    base = `${e2e.origin}${e2e.projectPath}/data`;
  });
  shootFailures('first-minutes-refs', () => e2e);
  after(() => e2e?.close());

  it('6. shows a Ref as its document’s display field, linked to it, the id on hover', async () => {
    await page.goto(`${base}/books`);
    const link = page.getByRole('link', { name: 'Ada Lovelace', exact: true });
    await link.waitFor();
    expect(await link.getAttribute('title')).to.equal(ada);
    expect(await link.getAttribute('href')).to.equal(`${e2e.projectPath}/data/authors/${ada}`);
    expect(await page.getByRole('gridcell', { name: ada }).count(), 'no raw id shown').to.equal(0);
    await e2e.checkPage('first-minutes-ref-labels');
    // The developer chooses another display field; the choice is kept.
    await page.getByRole('button', { name: /^Columns/ }).click();
    await page.getByLabel('Show authors documents by').selectOption('email');
    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: 'ada@example.test', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('link', { name: 'ada@example.test', exact: true }).click();
    await page.getByRole('heading', { name: `Document ${ada}` }).waitFor();
  });

  it('10. draws the Ref picker’s and the owner picker’s lists readably', async () => {
    await page.goto(`${base}/books/new`);
    await page.getByRole('button', { name: 'author: Choose a authors document' }).click();
    const choice = page.getByRole('button', { name: new RegExp(`^Ada Lovelace · ${ada}$`) });
    await choice.waitFor();
    const colours = await choice.evaluate((el) => {
      const style = getComputedStyle(el);
      const popover = getComputedStyle(el.closest('.popover')!);
      return { text: style.color, back: popover.backgroundColor };
    });
    expect(colours.text).to.not.equal(colours.back);
    await e2e.checkPage('first-minutes-ref-picker-open');
    await page.keyboard.press('Escape');

    await page.goto(`${base}/diaries/new`);
    await page.getByRole('button', { name: 'Choose an owner' }).click();
    await page.getByLabel('Email or name contains').fill('LICE');
    await page.getByRole('button', { name: /^alice@example\.test/ }).waitFor();
    await e2e.checkPage('first-minutes-owner-picker-open');
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
