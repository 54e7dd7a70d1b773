// An installation not yet set up, in a developer's first minutes, in a real browser: with no SMTP
// server the sign-up page says where the confirmation went (the outbox folder), and with no
// platform AI key the AI page says what the operator configures, or what a developer can add.
import { readdir } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { expectNoAxeViolation } from './first-minutes-shared.js';

describe('first minutes: an installation without SMTP or a platform AI key', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  const outbox = mkdtempSync(path.join(tmpdir(), 'outbox-'));

  before(async () => {
    e2e = await startDashboardE2E('first_minutes_setup', { SMTP_URL: '', MAIL_OUTBOX_DIR: outbox });
  });
  shootFailures('first-minutes-setup', () => e2e);
  after(async () => {
    await e2e?.close();
    rmSync(outbox, { recursive: true, force: true });
  });

  it('10. says where the sign-up mail went when no SMTP server is set', async () => {
    const visitor = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const their = await visitor.newPage();
    try {
      await their.goto(`${e2e.origin}/signup`);
      await their.getByLabel('Email').fill('newcomer@example.test');
      await their.getByLabel('Password').fill('correct horse battery');
      await their.getByRole('button', { name: 'Sign up' }).click();
      await their.getByRole('heading', { name: 'Check your mail' }).waitFor();
      await their.getByText('We wrote a message to newcomer@example.test.', { exact: false }).waitFor();
      await their
        .getByText('the message was not sent: it was written as a file to the server’s outbox folder', {
          exact: false,
        })
        .waitFor();
      expect(await their.locator('code', { hasText: 'MAIL_OUTBOX_DIR' }).count()).to.equal(1);
      await expectNoAxeViolation(their, 'sign-up sent to the outbox');
      await their.screenshot({ path: 'screenshots/first-minutes-signup-outbox.png', fullPage: true });
      // The message is there indeed.
      for (let i = 0; i < 50 && (await readdir(outbox)).length === 0; i++) await their.waitForTimeout(100);
      expect((await readdir(outbox)).length).to.be.at.least(1);
    } finally {
      await visitor.close();
    }
  });

  it('10. the AI page says what the operator configures when there is no platform key', async () => {
    const page = e2e.page;
    await page.goto(`${e2e.origin}${e2e.projectPath}/ai`);
    await page.getByRole('heading', { name: 'The AI tools need a provider key' }).waitFor();
    await page.getByText('This installation has no platform AI key', { exact: false }).waitFor();
    expect(await page.locator('code', { hasText: 'AI_PLATFORM_KEY' }).count()).to.equal(1);
    await page.getByText('On the Pro plan, a project or account key can be added instead.').waitFor();
    // No tool that could only refuse.
    expect(await page.getByRole('button', { name: /Build the query|Start/ }).count()).to.equal(0);
    expect(await page.getByRole('heading', { name: 'Query Builder' }).count()).to.equal(0);
    await expectNoAxeViolation(page, 'AI page without a key');
    await e2e.checkPage('first-minutes-ai-no-key');
    // On Pro, the page points at where a key of one's own is added.
    await e2e.dashboard.services.repos.developers.setPlan(e2e.owner.developer.id, 'pro');
    await page.reload();
    await page.getByRole('link', { name: 'Settings', exact: true }).last().waitFor();
    await page.getByText('Or bring your own key', { exact: false }).waitFor();
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
