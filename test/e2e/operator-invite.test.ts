// The operator invites a developer from the Developers page and sees the confirmation and the
// pending invitation; the invited person opens the mailed link (read from the SMTP sink), finds
// the address filled in on the sign-up and gets an account on the chosen plan; the Overview
// shows the processes seen, a stopped one marked gone. axe and the 390 px pass on each page.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { mailbox } from '../helpers/mail.js';
import { instancesRepo } from '../../src/db/instances.js';
import { startHeartbeat } from '../../src/services/heartbeat.js';

describe('web dashboard: the operator invites developers and sees the processes', function () {
  this.timeout(180_000);
  let e2e: DashboardE2E;
  let page: Page;
  const invited = `invited-${randomBytes(5).toString('hex')}@example.test`;
  let link = '';

  const signInAs = async (cookie: string) => {
    const [name, value] = cookie.split('=') as [string, string];
    await e2e.context.clearCookies();
    await e2e.context.addCookies([{ name, value, url: e2e.origin }]);
  };

  before(async () => {
    e2e = await startDashboardE2E('web_operator_invite');
    page = e2e.page;
    await signInAs(e2e.operator.cookie);
  });
  shootFailures('operator-invite', () => e2e);
  after(() => e2e?.close());

  it('invites an address on a plan from the Developers page: a confirmation and a pending row', async () => {
    const inbox = mailbox(invited);
    await page.goto(`${e2e.origin}/admin/developers`);
    await page.getByRole('heading', { name: 'Invite a developer' }).waitFor();
    await page.getByText('No pending invitations.').waitFor();
    await page.getByLabel('Email', { exact: true }).fill('not an address');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Enter an email address, like ada@example.com.').waitFor();

    await page.getByLabel('Email', { exact: true }).fill(invited);
    await page.getByLabel('Plan', { exact: true }).selectOption('pro');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Invitation sent to ${invited}. The link works once, for 7 days.` })
      .waitFor();
    const row = page
      .getByRole('region', { name: 'Pending invitations' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: invited }) });
    await row.getByText('Pro', { exact: true }).waitFor();
    expect(await page.getByLabel('Email', { exact: true }).inputValue(), 'the form is emptied').to.equal('');

    const text = (await inbox.next()).raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    link = /https?:\/\/\S+\/signup\?invitation=[\w-]+&email=[^\s"<>]+/.exec(text)![0];
    expect(link.startsWith(`${e2e.origin}/signup?invitation=`)).to.equal(true);
    await e2e.checkPage('operator-invite');
  });

  it('the invited person opens the link: the address is filled in, and the account is on the plan', async () => {
    await e2e.context.clearCookies();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: `You were invited to this installation as ${invited}` })
      .waitFor();
    const email = page.getByLabel('Email', { exact: true });
    expect(await email.inputValue()).to.equal(invited);
    expect(await email.getAttribute('readonly')).to.not.equal(null);
    await e2e.checkPage('invited-signup');
    await page.getByLabel('Name (optional)').fill('Invited Person');
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: invited }).waitFor();
    const account = await e2e.dashboard.services.repos.developers.findByEmail(invited);
    expect(account).to.include({ plan: 'pro', name: 'Invited Person', isOperator: false });

    // The link worked once.
    await e2e.context.clearCookies();
    await page.goto(link);
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('alert').filter({ hasText: 'This invitation link is not valid' }).waitFor();
  });

  it('shows the processes seen on the Overview, one not seen for minutes marked gone', async () => {
    const repo = instancesRepo(e2e.dashboard.deps.db.platform);
    const beat = startHeartbeat({
      instances: repo,
      roles: ['public', 'dashboard'],
      version: e2e.dashboard.deps.version,
      log: e2e.dashboard.deps.log,
    });
    try {
      await repo.beat(
        {
          role: 'worker',
          instance: 'old-host:7:beef',
          version: '0.0.9',
          startedAt: new Date(Date.now() - 3600_000),
        },
        new Date(Date.now() - 5 * 60_000),
      );
      await signInAs(e2e.operator.cookie);
      await page.goto(`${e2e.origin}/admin`);
      const table = page.getByRole('region', { name: 'Processes seen' });
      await table.waitFor();
      for (const role of ['public', 'dashboard']) {
        await table
          .getByRole('row')
          .filter({ has: page.getByRole('rowheader', { name: role, exact: true }) })
          .filter({ hasText: beat.instance })
          .filter({ hasText: /now$/ })
          .waitFor();
      }
      const gone = table.getByRole('row').filter({ hasText: 'old-host:7:beef' });
      await gone.getByText('5 min ago').waitFor();
      await gone.getByText('(gone)').waitFor();
      await e2e.checkPage('operator-instances');
    } finally {
      await beat.stop();
    }
  });
});
