// The Backups page restores over its own project, and a collection's export fails in words, in a
// real browser (the worker's runner driven by the test): the dialog says what is replaced and keeps
// its button disabled until the project's name is typed exactly; 409 (a backup under way) and 400
// (the project renamed meanwhile) in words; then the restore's progress and its conflicts (Refs to a
// document no archive holds, more than the API lists); the data page shows the backed-up documents
// back and one created since gone, with the same keys. A restore into a new project lists the same
// conflicts. Export: a success is a file; a refusal and an ended session are words, not a download.
import { expect } from 'chai';
import { ObjectId } from 'mongodb';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Download, Page } from 'playwright-core';
import type { ApiClient } from '../helpers/client.js';
import { contextFor } from '../helpers/fixtures.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { checkAxe, shot, sidewaysOverflow, startRig, type DataBrowserRig } from './data-shared.js';

const ORPHANS = 105;

describe('Backups page: restore over the same project, and export failures, in a real browser', function () {
  this.timeout(180_000);
  let rig: DataBrowserRig;
  let page: Page;
  let dash: ApiClient;
  let secret: ApiClient;
  let backupId: string;
  let base: string;
  const tmp = mkdtempSync(path.join(tmpdir(), 'e2e-restore-'));
  const drain = () => backupRunner(rig.dashboard.deps, rig.dashboard.services).drain();
  const backupRow = () => page.locator(`[data-testid=backup-row][data-backup-id="${backupId}"]`);
  const titles = async () =>
    ((await secret.get('/api/data/posts')).body.data as { title: string }[]).map((d) => d.title).sort();

  before(async () => {
    rig = await startRig('web_backups_restore');
    page = rig.page;
    const { fx, dashboard } = rig;
    const ctx = contextFor({ developer: fx.developer });
    const create = (name: string, fields: unknown[]) =>
      dashboard.services.collections.create(ctx, fx.project.id, { name, mode: 'schema', fields } as never);
    await create('authors', [{ name: 'name', type: 'String', required: true }]);
    await create('posts', [
      { name: 'title', type: 'String', required: true },
      { name: 'author', type: 'Ref', ref: 'authors' },
    ]);
    await create('notes', [
      { name: 'text', type: 'String' },
      { name: 'author', type: 'Ref', ref: 'authors' },
    ]);
    await create('scratch', [{ name: 'text', type: 'String' }]);
    secret = rig.publicApp.client.with({ 'x-api-key': fx.secretKey });
    const ada = await secret.post('/api/data/authors', { name: 'Ada' });
    expect(ada.status, ada.text).to.equal(201);
    for (const title of ['Kept 1', 'Kept 2'])
      expect((await secret.post('/api/data/posts', { title, author: ada.body.data._id })).status).to.equal(
        201,
      );
    // Notes whose author is in no archive (written past the API, as a deleted author would leave
    // them): each is a Ref conflict of the restore, more than the 100 the job lists.
    await dashboard.deps.db
      .project(fx.project.id)
      .collection('notes')
      .insertMany(
        Array.from({ length: ORPHANS }, (_, n) => ({
          text: `note ${n}`,
          author: new ObjectId().toHexString(),
        })),
      );
    dash = dashboard.client.with({ cookie: fx.cookie });
    base = `/api/projects/${fx.project.id}`;
    const hook = await dash.post(`${base}/webhooks`, {
      url: 'https://93.184.215.14/in',
      events: ['document.created'],
    });
    expect(hook.status, hook.text).to.equal(201);
    const backup = await dash.post(`${base}/backups`, { includeUsers: true });
    expect(backup.status, backup.text).to.equal(202);
    backupId = backup.body.data.backup.id;
    expect(await drain()).to.equal(1);

    // Since the backup: one post added, one trashed.
    expect((await secret.post('/api/data/posts', { title: 'Added later' })).status).to.equal(201);
    const kept2 = ((await secret.get('/api/data/posts')).body.data as { _id: string; title: string }[]).find(
      (d) => d.title === 'Kept 2',
    )!;
    expect((await secret.delete(`/api/data/posts/${kept2._id}`)).status).to.equal(200);
    expect(await titles()).to.deep.equal(['Added later', 'Kept 1']);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await shot(page, 'failed-backups-restore').catch(() => undefined);
  });
  after(async () => {
    await rig?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('says what is replaced and waits for the project’s name typed exactly', async () => {
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}/backups`);
    await backupRow().getByRole('button', { name: 'Restore over this project…' }).click();
    const dialog = page.getByRole('alertdialog', { name: /^Restore the backup of .* over “Shop”\?$/ });
    await dialog.waitFor();
    for (const words of [
      'its documents and collections',
      'its end users (with their passwords as they were then)',
      'its webhooks and mail templates',
      'its files (those uploaded since are deleted) and its settings',
      'the API keys (clients work on with them), the members and the project’s name',
      'Until the restore ends, the project’s apps are answered “The project is being restored from a backup” (503)',
    ])
      await dialog.getByText(words, { exact: false }).waitFor();
    const sent: string[] = [];
    const track = (r: { method(): string; url(): string }) =>
      r.method() === 'POST' && sent.push(new URL(r.url()).pathname);
    page.on('request', track);
    const button = dialog.getByRole('button', { name: 'Restore over this project' });
    const field = dialog.getByLabel('Type Shop to confirm');
    expect(await button.isDisabled(), 'nothing typed').to.equal(true);
    for (const typed of ['Sho', 'shop', 'Shop ', ' Shop', 'SHOP']) {
      await field.fill(typed);
      expect(await button.isDisabled(), `"${typed}" is not the name`).to.equal(true);
    }
    await field.press('Enter');
    await field.fill('Shop');
    expect(await button.isDisabled()).to.equal(false);
    await checkAxe(page, 'replace dialog, name typed');
    await shot(page, 'backups-replace-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    page.off('request', track);
    expect(sent, 'nothing sent before the name is confirmed').to.deep.equal([]);
    expect(await titles()).to.deep.equal(['Added later', 'Kept 1']);
  });

  it('says in words why it is refused: a backup under way (409), the project renamed (400)', async () => {
    await backupRow().getByRole('button', { name: 'Restore over this project…' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByLabel('Type Shop to confirm').fill('Shop');
    // Queued behind the page's back.
    expect((await dash.post(`${base}/backups`, { includeUsers: false })).status).to.equal(202);
    await dialog.getByRole('button', { name: 'Restore over this project' }).click();
    await dialog
      .getByRole('alert')
      .getByText('A backup or restore of this project is queued or running: wait until it ends')
      .waitFor();
    await checkAxe(page, 'replace refused, under way');
    expect(await drain()).to.equal(1);

    // Renamed elsewhere: the name typed is the old one.
    expect((await dash.patch(base, { name: 'Shop (live)' })).status).to.equal(200);
    await dialog.getByRole('button', { name: 'Restore over this project' }).click();
    await dialog.getByRole('alert').getByText('The server did not take that as the project’s name').waitFor();
    // The project was read again: its name now asked, the old one no longer enough.
    await dialog.getByLabel('Type Shop (live) to confirm').waitFor();
    expect(await dialog.getByRole('button', { name: 'Restore over this project' }).isDisabled()).to.equal(
      true,
    );
    expect(await titles(), 'nothing replaced').to.deep.equal(['Added later', 'Kept 1']);
  });

  it('restores over the project: progress, then its conflicts; the data is the backup’s again', async () => {
    const dialog = page.getByRole('alertdialog');
    await dialog.getByLabel('Type Shop (live) to confirm').fill('Shop (live)');
    await dialog.getByRole('button', { name: 'Restore over this project' }).click();
    await dialog
      .getByRole('heading', { name: /^Restoring the backup of .* over “Shop \(live\)”$/ })
      .waitFor();
    const status = dialog.getByTestId('replace-status');
    await status.getByText('Queued').waitFor();
    await status.getByText('Waiting for the worker').waitFor();
    expect(await status.getByRole('progressbar').count()).to.equal(1);
    await checkAxe(page, 'replace queued');
    expect(await drain()).to.equal(1);

    await status.getByText('Done').waitFor();
    const conflicts = status.getByTestId('restore-conflicts');
    await conflicts.getByText(`${ORPHANS} conflicts:`, { exact: false }).waitFor();
    expect(await conflicts.getByTestId('conflict-row').count(), 'the first 100').to.equal(100);
    const first = await conflicts.getByTestId('conflict-row').first().locator('th, td').allTextContents();
    expect(first.slice(0, 3)).to.deep.equal(['notes', '1', 'author']);
    expect(first[3]).to.match(/^refers to [0-9a-f]{24} in authors, which is not in the restored project/);
    expect(await conflicts.getByTestId('conflicts-more').textContent()).to.equal(
      '5 more not listed (the restore lists the first 100).',
    );
    await checkAxe(page, 'replace done, conflicts');
    await shot(page, 'backups-replace-conflicts');
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      expect(await sidewaysOverflow(page)).to.be.at.most(0);
      await checkAxe(page, 'replace conflicts at phone width');
      await shot(page, 'backups-replace-phone');
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The data page: the trashed post is back, the one added since is gone; same keys, same name.
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}/data/posts`);
    for (const title of ['Kept 1', 'Kept 2']) await page.getByText(title, { exact: true }).first().waitFor();
    await page.getByText('2 documents on this page').waitFor();
    expect(await page.getByText('Added later').count()).to.equal(0);
    expect(await titles(), 'the secret key still works').to.deep.equal(['Kept 1', 'Kept 2']);
    expect((await dash.get(base)).body.data.project.name).to.equal('Shop (live)');
  });

  it('lists the conflicts of a restore into a new project too', async () => {
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}/backups`);
    await backupRow().getByRole('button', { name: 'Restore into a new project' }).click();
    const panel = page.getByRole('region', { name: /^Restore the backup of .* into a new project$/ });
    await panel.getByLabel('New project name').fill('Shop copy');
    await panel.getByRole('button', { name: 'Restore' }).click();
    const status = panel.getByTestId('restore-status');
    await status.getByText('Queued').waitFor();
    expect(await status.getByTestId('restore-conflicts').count(), 'none while it runs').to.equal(0);
    expect(await drain()).to.equal(1);
    await status.getByText('Done').waitFor();
    await status.getByText(`${ORPHANS} conflicts:`, { exact: false }).waitFor();
    expect(await status.getByTestId('conflict-row').count()).to.equal(100);
    await checkAxe(page, 'restore into a new project with conflicts');

    // Its webhook came back disabled, and the Webhooks page says so and offers to enable it.
    const projects = (await dash.get('/api/projects')).body.data.projects as { id: string; name: string }[];
    const copy = projects.find((p) => p.name === 'Shop copy')!;
    await page.goto(`${rig.origin}/projects/${copy.id}/webhooks`);
    const row = page.getByRole('row', { name: /93\.184\.215\.14/ });
    await row.getByText('Disabled after restore').waitFor();
    await checkAxe(page, 'webhooks disabled after a restore');
    await row.getByRole('button', { name: 'Enable https://93.184.215.14/in' }).click();
    await row.getByText('Enabled', { exact: true }).waitFor();
  });

  it('exports a file, and says why not when the export is refused or the session ended', async () => {
    const downloads: Download[] = [];
    page.on('download', (d) => downloads.push(d));
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}/data/posts`);
    const exportButton = page.getByRole('button', { name: 'Export CSV' });
    const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
    expect(download.suggestedFilename()).to.equal('posts.csv');
    const file = path.join(tmp, 'posts.csv');
    await download.saveAs(file);
    expect(readFileSync(file, 'utf8').split('\r\n')[0]).to.equal('_id,title,author,createdAt,updatedAt');

    // A collection deleted behind the page's back: the API's refusal, in words.
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}/data/scratch`);
    await page.getByText('No documents yet.').waitFor();
    expect((await dash.delete(`${base}/collections/scratch`)).status).to.equal(200);
    const before = downloads.length;
    await page.getByRole('button', { name: 'Export CSV' }).click();
    await page
      .getByRole('alert')
      .getByText(/^The export failed: .*scratch/)
      .waitFor();
    await checkAxe(page, 'export refused');

    // The session ends (its cookie gone): words on the log-in page, and no file of error text.
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}/data/posts`);
    await page.getByText('Kept 1', { exact: true }).first().waitFor();
    await rig.context.clearCookies();
    // A background refresh of the page may meet the ended session before the click does (then
    // the button is already gone): either way the person lands on these words, with no file.
    await page
      .getByRole('button', { name: 'Export CSV' })
      .click({ timeout: 5000 })
      .catch(() => undefined);
    await page.getByText('Your session ended. Log in again.').waitFor();
    await page.waitForTimeout(500);
    expect(downloads.length - before, 'no download of an error').to.equal(0);
    await shot(page, 'export-session-ended');
    expect(
      rig.consoleErrors.filter((m) => !/\b(400|401|404|409)\b/.test(m)),
      'only the refusals made on purpose',
    ).to.deep.equal([]);
  });
});
