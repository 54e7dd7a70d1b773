// The dashboard's shell in a real browser: forms checked with the API's own schemas before they
// are sent (every problem at once, in words, under its field), the plan's project limit shown
// before it bites, deletion confirmed in the app's dialog, an ended session sent back to log-in
// and then to the page asked for, the lockout's wait in words, and the project menu folded at
// phone width. axe and the phone-width pass run on every page visited.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  axeViolations,
  shootFailures,
  startDashboardE2E,
  type DashboardE2E,
} from '../helpers/dashboard-e2e.js';
import { SESSION_COOKIE } from '../../src/services/accounts.js';

describe('web dashboard: shell, forms and sessions', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  const sent: string[] = [];

  before(async () => {
    e2e = await startDashboardE2E('web_shell');
    page = e2e.page;
    page.on(
      'request',
      (r) => r.method() !== 'GET' && sent.push(`${r.method()} ${new URL(r.url()).pathname}`),
    );
  });
  shootFailures('shell', () => e2e);
  after(() => e2e?.close());

  it('names every problem of an empty sign-up form at once, under its field, before sending', async () => {
    const fresh = await e2e.browser.newPage();
    try {
      await fresh.goto(`${e2e.origin}/signup`);
      await fresh.getByRole('heading', { name: 'Create your account' }).waitFor();
      const before = sent.length;
      await fresh.getByRole('button', { name: 'Sign up' }).click();
      const errors = fresh.locator('.field-error');
      await errors.first().waitFor();
      expect(await errors.allTextContents()).to.deep.equal(['Required.', 'Required.']);
      expect(await fresh.getByRole('alert').count(), 'no banner repeating them').to.equal(0);
      await fresh.getByLabel('Email').fill('not an email');
      await fresh.getByLabel('Password').fill('short');
      expect(await errors.allTextContents()).to.deep.equal([
        'Enter an email address, like ada@example.com.',
        'At least 8 characters.',
      ]);
      await fresh.getByLabel('Email').fill('ada@example.test');
      await fresh.getByLabel('Password').fill('long enough password');
      expect(await errors.count(), 'messages clear as the fields are fixed').to.equal(0);
      expect(sent.slice(before), 'nothing was sent').to.deep.equal([]);
    } finally {
      await fresh.close();
    }
  });

  it('asks for the password again on the mailed sign-up link, and says in words when it is not valid', async () => {
    const fresh = await e2e.browser.newPage();
    try {
      await fresh.goto(`${e2e.origin}/signup/confirm?token=${'x'.repeat(43)}`);
      await fresh.getByRole('heading', { name: 'Finish creating your account' }).waitFor();
      await fresh.getByLabel('Password').fill('correct horse battery staple');
      await fresh.getByRole('button', { name: 'Create my account' }).click();
      await fresh.getByText('This confirmation link is not valid').waitFor();
      expect(await axeViolations(fresh)).to.deep.equal([]);
    } finally {
      await fresh.close();
    }
  });

  it('says how long a locked-out log-in must wait', async () => {
    const fresh = await e2e.browser.newPage();
    try {
      for (let i = 0; i < 5; i++) {
        await fetch(`${e2e.origin}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'locked@example.test', password: 'wrong password' }),
        });
      }
      await fresh.goto(`${e2e.origin}/login`);
      await fresh.getByLabel('Email').fill('locked@example.test');
      await fresh.getByLabel('Password').fill('wrong password');
      await fresh.getByRole('button', { name: 'Log in' }).click();
      await fresh
        .getByRole('alert')
        .filter({ hasText: 'Too many attempts. Try again in 15 minutes.' })
        .waitFor();
    } finally {
      await fresh.close();
    }
  });

  it('refuses a blank project name in words and shows the plan limit before it bites', async () => {
    await page.goto(e2e.origin);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const limit = page.getByTestId('project-limit');
    await limit.getByText('1 of 2 projects on Free.').waitFor();
    await e2e.checkPage('projects');
    const before = sent.length;
    await page.getByLabel('Project name').fill('   ');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.locator('.field-error').getByText('Enter a name; spaces alone are not a name.').waitFor();
    expect(sent.slice(before)).to.deep.equal([]);
    await page.getByLabel('Project name').fill('  Blog  ');
    expect(await page.locator('.field-error').count()).to.equal(0);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText('shown only this once').waitFor();
    await page.getByRole('link', { name: /^Blog/ }).waitFor();
    await limit.getByText('2 of 2 projects on Free. Delete one of yours').waitFor();
    expect(await page.getByRole('button', { name: 'Create project' }).isDisabled()).to.equal(true);
  });

  it('deletes a project after its name is typed in the app’s dialog', async () => {
    await page.getByRole('link', { name: 'Open the project' }).click();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await e2e.checkPage('settings');
    await page.getByRole('button', { name: 'Delete project' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete the project “Blog”?' });
    await dialog.waitFor();
    expect(await axeViolations(page)).to.deep.equal([]);
    const confirm = dialog.getByRole('button', { name: 'Delete project' });
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog.getByLabel('Type Blog to confirm').fill('Blo');
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog.getByLabel('Type Blog to confirm').fill('Blog');
    await confirm.click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByTestId('project-limit').getByText('1 of 2 projects on Free.').waitFor();
    expect(await page.getByRole('link', { name: /^Blog/ }).count()).to.equal(0);
  });

  it('saves settings, with a bad site URL named under its field', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/settings`);
    await page.getByLabel('Site URL').fill('not a url');
    await page.getByLabel('Project name').fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const errors = page.locator('.field-error');
    await errors.first().waitFor();
    expect(await errors.allTextContents()).to.deep.equal([
      'Required.',
      'Enter a full address, like https://example.com/hook.',
    ]);
    await page.getByLabel('Project name').fill('Shop (live)');
    await page.getByLabel('Site URL').fill('https://shop.example');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await page.locator('.project-name').getByText('Shop (live)').waitFor();
  });

  it('folds the project menu behind a toggle at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${e2e.origin}${e2e.projectPath}`);
      await page.getByText('Against your plan limits').waitFor();
      const menu = page.getByRole('navigation', { name: 'Project' });
      expect(await menu.getByRole('link', { name: 'Members' }).isVisible()).to.equal(false);
      const box = await menu.boundingBox();
      expect(box!.height, 'the folded menu is one row').to.be.below(80);
      await menu.getByRole('button', { name: 'Menu: Overview' }).click();
      await menu.getByRole('link', { name: 'Members' }).click();
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      expect(await menu.getByRole('link', { name: 'Overview' }).isVisible()).to.equal(false);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).to.be.at.most(0);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('says why the last admin cannot step down, without a stale success beside it', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/members`);
    const role = page.getByLabel(`Role of ${e2e.owner.developer.email}`);
    await role.selectOption('member');
    const refusal = page.getByRole('alert').filter({ hasText: /admin/ });
    await refusal.waitFor();
    expect(await page.getByRole('status').filter({ hasText: /now/ }).count()).to.equal(0);
    expect(await role.inputValue()).to.equal('admin');
  });

  it('rotates a key after the app’s dialog and shows the new one once', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/keys`);
    await page.getByRole('button', { name: 'Rotate publishable key' }).click();
    await page
      .getByRole('alertdialog', { name: 'Rotate the publishable key?' })
      .getByRole('button', { name: 'Rotate publishable key' })
      .click();
    expect(await page.getByTestId('key-publishable').inputValue()).to.match(/^pk_live_/);
    const old = await fetch(`${e2e.publicApp.url}/api/data/anything`, {
      headers: { 'x-api-key': e2e.owner.publishableKey },
    });
    expect(old.status).to.equal(401);
  });

  it('passes axe and fits 390 px on every other page', async () => {
    const pages: [string, string, RegExp][] = [
      ['overview', '', /Against your plan limits/],
      ['collections', '/collections', /Collections/],
      ['collection-new', '/collections/new', /New collection/],
      ['files', '/files', /Files/],
      ['members', '/members', /Members/],
      ['keys', '/keys', /API keys/],
      ['api-reference', '/api', /API reference/],
    ];
    for (const [name, rest, heading] of pages) {
      await page.goto(`${e2e.origin}${e2e.projectPath}${rest}`);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      await e2e.checkPage(`page-${name}`);
    }
    await page.goto(`${e2e.origin}/account`);
    await page.getByRole('form', { name: 'Personal AI key' }).waitFor();
    await e2e.checkPage('account');
    // The page an invitation mail links to (a token that is no longer valid: its refusal shows).
    await page.goto(`${e2e.origin}/invitations/accept?token=${'x'.repeat(43)}`);
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.getByRole('alert').filter({ hasText: 'This invitation link is not valid' }).waitFor();
    await e2e.checkPage('invitation-accept');
  });

  it('sends an ended session back to log-in with a notice, then to the page asked for', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}`);
    await page.getByText('Against your plan limits').waitFor();
    const token = e2e.owner.cookie.slice(SESSION_COOKIE.length + 1);
    await e2e.dashboard.services.accounts.logout(token);
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Your session ended. Log in again.' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).to.equal(`${e2e.projectPath}/members`);
    await e2e.checkPage('login-session-ended');
    await page.getByLabel('Email').fill(e2e.owner.developer.email);
    await page.getByLabel('Password').fill(e2e.owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal(`${e2e.projectPath}/members`);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
