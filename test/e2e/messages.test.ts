// Messages in the dashboard as sentences that say what to change and where (issue 44, item 6):
// the External database page names the settings behind missing addresses, and the AI key form's
// Pro-plan refusal is one sentence, not the API's string appended in brackets.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('dashboard messages: what to change, and where', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;

  before(async () => {
    // New accounts on Free, whatever the profile's default: the AI key is then refused.
    e2e = await startDashboardE2E('messages', { DEFAULT_PLAN: 'free' });
    page = e2e.page;
  });
  shootFailures('messages', () => e2e);
  after(() => e2e?.close());

  it('names the settings behind the addresses an external database must allow', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/database`);
    await page.getByRole('heading', { name: 'External database' }).waitFor();
    for (const [service, setting] of [
      ['Dashboard service', 'DASHBOARD_EGRESS_IPS'],
      ['Public API service', 'PUBLIC_EGRESS_IPS'],
    ]) {
      const line = page.getByRole('listitem').filter({ hasText: service });
      expect(await line.textContent()).to.equal(
        `${service}: Not listed yet: the operator of this installation sets them in ${setting}.`,
      );
    }
    expect(await page.getByText('not configured by the operator').count()).to.equal(0);
    await e2e.checkPage('messages-database');
  });

  it('refuses an own AI key on Free in one sentence, without the API string in brackets', async () => {
    await page.goto(`${e2e.origin}/account`);
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'Personal AI key' }) });
    await form.getByLabel('AI provider key').fill(`gsk_${'a'.repeat(40)}`);
    await form.getByRole('button', { name: 'Save AI key' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    expect(text).to.match(/^Your own AI key needs the Pro plan, and your account is on the Free plan\./);
    expect(text).to.not.include('(');
    expect(text).to.not.include('Please upgrade');
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
