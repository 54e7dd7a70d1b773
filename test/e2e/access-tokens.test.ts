// The Account page's personal access tokens in a real browser: a token created (the password
// asked, a wrong one refused in words), shown once with a copy button until dismissed, working on
// the dashboard API, listed by prefix, then revoked through the app's dialog and refused; and a
// password change that says it revokes the tokens, and does.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('web dashboard: personal access tokens', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;

  before(async () => {
    e2e = await startDashboardE2E('web_tokens');
    page = e2e.page;
  });
  shootFailures('access-tokens', () => e2e);
  after(() => e2e?.close());

  it('creates a token shown once until dismissed, lists it by prefix and revokes it', async () => {
    await page.goto(`${e2e.origin}/account`);
    await page.getByRole('heading', { name: 'Personal access tokens' }).waitFor();
    // The heading shows before the list has loaded: wait for the list's own words.
    await page.getByText('No tokens yet.').waitFor({ timeout: 10_000 });
    expect(await page.getByText('No tokens yet.').isVisible()).to.equal(true);
    await page.getByRole('button', { name: 'Create token' }).click();
    expect(await page.locator('#token-name').evaluate((el) => el.getAttribute('aria-invalid'))).to.equal(
      'true',
    );
    await page.getByLabel('Name').fill('CI deploy');
    await page.getByLabel('Scope').selectOption('write');
    await page.getByLabel('Expires in').selectOption('90');
    await page.getByRole('checkbox', { name: 'Shop' }).check();
    await page.getByLabel('Your password').fill('not my password');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText('Current password is incorrect').waitFor();
    await page.getByLabel('Your password').fill(e2e.owner.password);
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByLabel('Access token CI deploy');
    await shown.waitFor();
    const token = await shown.inputValue();
    expect(token).to.match(/^mbp_/);
    expect(
      await page.getByText('Copy the token “CI deploy” now: it is shown only this once.').isVisible(),
    ).to.equal(true);

    const row = page.getByRole('row', { name: /CI deploy/ });
    await row.waitFor();
    expect(await row.textContent())
      .to.include(`${token.slice(0, 12)}…`)
      .and.include('Read and write')
      .and.include('Shop');
    await e2e.checkPage('account-tokens');
    expect(await shown.isVisible(), 'still shown after the checks').to.equal(true);

    const used = await fetch(`${e2e.origin}/api/projects/${e2e.owner.project.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(used.status).to.equal(200);

    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await shown.count()).to.equal(0);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke token' }).click();
    await page
      .getByRole('row', { name: /CI deploy/ })
      .getByText(/^Revoked/)
      .waitFor();
    const refused = await fetch(`${e2e.origin}/api/projects/${e2e.owner.project.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(refused.status).to.equal(401);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });

  it('a password change says it revokes the tokens, and the list shows them revoked', async () => {
    await page.goto(`${e2e.origin}/account`);
    await page.getByLabel('Name').fill('Nightly');
    await page.getByLabel('Your password').fill(e2e.owner.password);
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.getByLabel('Access token Nightly').inputValue();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const row = page.getByRole('row', { name: /Nightly/ });
    await row.getByText(/^Expires/).waitFor();

    expect(await page.getByText('every access token revoked').isVisible()).to.equal(true);
    await page.getByLabel('Current password').fill(e2e.owner.password);
    await page.getByLabel('New password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page
      .getByText('Password changed; 1 access token was revoked. Other sessions have been logged out.')
      .waitFor();
    await row.getByText(/^Revoked/).waitFor();
    const refused = await fetch(`${e2e.origin}/api/projects`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(refused.status).to.equal(401);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
