// Pages of a developer's first minutes, in a real browser: the end users found by a text anywhere
// in their email or name, both new keys kept on screen after two rotations until each is
// dismissed, and the pages of issue 40 with no axe violation of any impact (the Backups page's
// two landmarks named alike, an h1 on the end users and indexes pages).
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { contextFor } from '../helpers/fixtures.js';
import { USER_BASE_FIELDS } from '../helpers/user-auth.js';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { expectNoAxeViolation } from './first-minutes-shared.js';

describe('first minutes: end users, keys, and every page under axe', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;

  before(async () => {
    e2e = await startDashboardE2E('first_minutes_pages');
    page = e2e.page;
    const ctx = contextFor({ developer: e2e.owner.developer });
    await e2e.dashboard.services.collections.create(ctx, e2e.owner.project.id, {
      name: 'users',
      mode: 'schema',
      fields: USER_BASE_FIELDS,
    });
    await e2e.dashboard.services.collections.create(ctx, e2e.owner.project.id, {
      name: 'posts',
      mode: 'schema',
      fields: [{ name: 'title', type: 'String' }],
    });
    const pk = e2e.publicApp.client.with({ 'x-api-key': e2e.owner.publishableKey });
    for (const [email, name] of [
      ['enduser-ann@example.test', 'Someone'],
      ['bob@example.test', 'Joanna Smith'],
      ['carl@example.test', 'Carl'],
    ]) {
      const res = await pk.post('/api/userAuth/signup', { email, password: 'correct horse battery', name });
      expect(res.status, res.text).to.equal(201);
    }
  });
  shootFailures('first-minutes-pages', () => e2e);
  after(() => e2e?.close());

  const rows = () => page.getByRole('rowheader').allTextContents();

  it('7. finds end users by a text anywhere in the email or the name, any case', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/users`);
    await page.getByRole('heading', { name: 'End users', level: 1 }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).count()).to.equal(1);
    await page.getByLabel('Email or name contains').fill('ANN');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('2 end users match').waitFor();
    expect((await rows()).sort()).to.deep.equal(['bob@example.test', 'enduser-ann@example.test']);
    expect(new URL(page.url()).search).to.equal('?search=ANN');
    await expectNoAxeViolation(page, 'end users, searched');
    await e2e.checkPage('first-minutes-end-users-search');
    // Pattern characters are only text.
    await page.getByLabel('Email or name contains').fill('.*');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No end users match.').waitFor();
  });

  it('8. keeps each new key shown until it is dismissed, across two rotations', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/keys`);
    const rotate = async (kind: 'publishable' | 'secret') => {
      await page.getByRole('button', { name: `Rotate ${kind} key` }).click();
      await page
        .getByRole('alertdialog', { name: `Rotate the ${kind} key?` })
        .getByRole('button', { name: `Rotate ${kind} key` })
        .click();
      await page.getByTestId(`key-${kind}`).waitFor();
    };
    await rotate('publishable');
    const publishable = await page.getByTestId('key-publishable').inputValue();
    expect(publishable).to.match(/^pk_live_/);
    await rotate('secret');
    // Both are on screen: the first was not replaced by the second.
    expect(await page.getByTestId('key-publishable').inputValue()).to.equal(publishable);
    expect(await page.getByTestId('key-secret').inputValue()).to.match(/^sk_live_/);
    await expectNoAxeViolation(page, 'keys after two rotations');
    await e2e.checkPage('first-minutes-keys-both');
    await page.getByRole('button', { name: 'Hide the new publishable key' }).click();
    await page.getByTestId('key-publishable').waitFor({ state: 'detached' });
    expect(await page.getByTestId('key-secret').count()).to.equal(1);
    await page.getByRole('button', { name: 'Hide the new secret key' }).click();
    await page.getByTestId('key-secret').waitFor({ state: 'detached' });
  });

  it('11. the indexes and Backups pages: one h1, no axe violation of any impact, 390 px', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/collections/posts/indexes`);
    await page.getByRole('heading', { name: 'Indexes of “posts”', level: 1 }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).count()).to.equal(1);
    await expectNoAxeViolation(page, 'indexes');
    await e2e.checkPage('first-minutes-indexes');

    await page.goto(`${e2e.origin}${e2e.projectPath}/backups`);
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Back up now' }).click();
    await page.getByRole('status').filter({ hasText: 'Backup queued.' }).waitFor();
    await page.getByRole('region', { name: 'Backups table' }).waitFor();
    await expectNoAxeViolation(page, 'backups with one listed');
    await e2e.checkPage('first-minutes-backups');
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
