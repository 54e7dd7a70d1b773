// A project restored from a backup, in a real browser at desktop width: the restore's result on the
// Backups page names the functions it left disabled and links to the Functions page, where the
// functions the restore brought back disabled are named above the list, with the secrets whose
// values were left behind, and one click on Enable turns one on (the API then has it enabled, its
// reason gone; an HTTP hook's new signing secret is shown once) while the other stays named. axe and the phone-width pass on the page as it is.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { createCollectionFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';

describe('web dashboard: functions restored from a backup', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let dash: ApiClient;
  let target: string;
  const drain = () => backupRunner(e2e.dashboard.deps, e2e.dashboard.services).drain();

  before(async () => {
    e2e = await startDashboardE2E('web_functions_restored', { ALLOW_PRIVATE_HOSTS: 'true' });
    page = e2e.page;
    dash = e2e.dashboard.client.with({ cookie: e2e.owner.cookie });
    const source = e2e.owner.project.id;
    await createCollectionFixture(e2e.dashboard.services, source, { name: 'posts' });
    const made = [
      {
        name: 'checkPost',
        trigger: { type: 'beforeCreate', collection: 'posts' },
        runtime: { type: 'http', url: 'http://127.0.0.1:9/check' },
        env: { API_TOKEN: 'secret-1', REGION: 'eu' },
      },
      {
        name: 'nightly',
        trigger: { type: 'schedule', cron: '0 3 * * *' },
        runtime: { type: 'javascript', code: 'export default async () => 1;' },
      },
    ];
    for (const body of made) {
      const res = await dash.post(`/api/projects/${source}/functions`, body);
      expect(res.status, res.text).to.equal(201);
    }
    const backup = await dash.post(`/api/projects/${source}/backups`, {});
    expect(backup.status, backup.text).to.equal(202);
    expect(await drain()).to.equal(1);
  });
  shootFailures('functions-restored', () => e2e);
  after(() => e2e?.close());

  it('restores from the Backups page, whose result names the functions it left disabled', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/backups`);
    await page
      .getByTestId('backup-row')
      .first()
      .getByRole('button', { name: 'Restore into a new project' })
      .click();
    const panel = page.getByRole('region', { name: /^Restore the backup of .* into a new project$/ });
    await panel.getByLabel('New project name').fill('Staging');
    await panel.getByRole('button', { name: 'Restore' }).click();
    await panel.getByRole('heading', { name: 'Restoring into “Staging”' }).waitFor();
    expect(await drain()).to.equal(1);
    const named = panel.getByTestId('restore-disabled-functions');
    await named
      .getByText('Restored disabled (their secrets’ values are not copied): checkPost, nightly.')
      .waitFor();
    await named.getByRole('link', { name: 'Enable them on the Functions page' }).click();
    await page.getByRole('heading', { name: 'Functions', level: 1 }).waitFor();
    target = new URL(page.url()).pathname.split('/')[2]!;
    expect(target).not.to.equal(e2e.owner.project.id);
  });

  it('names the functions restored disabled, with the secrets to set, and enables one in one click', async () => {
    expect(new URL(page.url()).pathname).to.equal(`/projects/${target}/functions`);
    const card = page.getByTestId('restored-functions');
    await card.getByRole('heading', { name: '2 functions were restored disabled' }).waitFor();
    await card
      .getByText('their secrets’ values were not copied (their names were)', { exact: false })
      .waitFor();
    await card.getByRole('link', { name: 'checkPost' }).waitFor();
    await card.getByRole('link', { name: 'nightly' }).waitFor();
    await card.getByText('(secrets to set: API_TOKEN, REGION)').waitFor();
    const rows = page.locator('tbody tr');
    await rows.filter({ hasText: 'checkPost' }).getByText('Disabled').waitFor();
    await e2e.checkPage('functions-restored');

    await card.getByRole('button', { name: 'Enable checkPost' }).click();
    await card.getByRole('heading', { name: '1 function was restored disabled' }).waitFor();
    // An HTTP hook signs with a new secret, shown once as it is enabled.
    const shown = page.getByRole('region', { name: 'checkPost is enabled: its new signing secret' });
    expect(await shown.getByTestId('function-secret').inputValue()).to.match(/^whsec_/);
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await card.getByRole('link', { name: 'checkPost' }).count()).to.equal(0);
    await rows.filter({ hasText: 'checkPost' }).getByText('Enabled').waitFor();
    const list = (await dash.get(`/api/projects/${target}/functions`)).body.data.functions as {
      name: string;
      enabled: boolean;
      disabledReason: string | null;
    }[];
    expect(list.find((f) => f.name === 'checkPost')).to.include({ enabled: true, disabledReason: null });
    expect(list.find((f) => f.name === 'nightly')!.enabled).to.equal(false);
    expect(list.find((f) => f.name === 'nightly')!.disabledReason).to.match(/^Disabled after restore: /);

    await card.getByRole('button', { name: 'Enable nightly' }).click();
    await card.waitFor({ state: 'detached' });
    expect(await page.getByTestId('function-secret').count(), 'JavaScript: no secret').to.equal(0);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
