// The Backups page and a collection's export and import in a real browser, with the worker's
// backup runner driven by the test (held halfway to see the bar move): back up now -> queued,
// the progress bar at 500 of 1,203 documents, then "Done" with a size and no more polling;
// download -> a gzip whose manifest names the project; restore into a new project -> keys shown
// once, the restore's progress, the same documents on the new project's data page; the plan's
// limit, "already under way" and a failed backup in words (a queued backup is polled, and not
// once the page is left); a member sees the admin pages' refusal; export a collection as CSV and
// import it into another with one invalid row named by row and reason. axe on each state and a
// phone-width pass.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Download, Page } from 'playwright-core';
import type { ApiClient } from '../helpers/client.js';
import { contextFor, createDeveloper } from '../helpers/fixtures.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import type { BackupJob } from '../../src/db/backup-jobs.js';
import { checkAxe, shot, sidewaysOverflow, startRig, type DataBrowserRig } from './data-shared.js';

const BODY_LIMIT = 65_536;

/** A gate the runner waits at (its onProgress seam) until the test opens it. */
function gate(stopAt: (job: BackupJob, done: number) => boolean) {
  let reach!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const opened = new Promise<void>((r) => (open = r));
  let held = false;
  return {
    reached,
    open,
    onProgress: async (job: BackupJob, done: number) => {
      if (held || !stopAt(job, done)) return;
      held = true;
      reach();
      await opened;
    },
  };
}

describe('Backups page in a real browser', function () {
  this.timeout(180_000);
  let rig: DataBrowserRig;
  let page: Page;
  let dash: ApiClient;
  let backupsUrl: string;
  let restoredId: string;
  const tmp = mkdtempSync(path.join(tmpdir(), 'e2e-backups-'));
  const products = [
    { name: 'Widget A', sku: 'w-a', price: 3 },
    { name: 'Widget B', sku: 'w-b', price: 4.5 },
    { name: 'Gadget, "quoted"', sku: 'g-c', price: 12 },
  ];
  const runner = (options: Parameters<typeof backupRunner>[2] = {}) =>
    backupRunner(rig.dashboard.deps, rig.dashboard.services, options);
  const row = () => page.getByTestId('backup-row');
  const listCalls: string[] = [];

  before(async () => {
    // A small JSON body limit: the import below sends a file larger than it, streamed.
    rig = await startRig('web_backups', { BODY_LIMIT_BYTES: String(BODY_LIMIT) });
    page = rig.page;
    const { fx, dashboard } = rig;
    const ctx = contextFor({ developer: fx.developer });
    const fields = [
      { name: 'name', type: 'String', required: true },
      { name: 'sku', type: 'String', unique: true },
      { name: 'price', type: 'Number' },
    ];
    for (const name of ['products', 'copy'])
      await dashboard.services.collections.create(ctx, fx.project.id, {
        name,
        mode: 'schema',
        fields,
      } as never);
    const secret = rig.publicApp.client.with({ 'x-api-key': fx.secretKey });
    for (const p of products) expect((await secret.post('/api/data/products', p)).status).to.equal(201);
    // 1,200 more documents straight into the project's database, so the bar has a middle to show.
    await dashboard.deps.db
      .project(fx.project.id)
      .collection('events')
      .insertMany(Array.from({ length: 1200 }, (_, n) => ({ n, kind: 'seed' })));
    dash = dashboard.client.with({ cookie: fx.cookie });
    backupsUrl = `${rig.origin}/projects/${fx.project.id}/backups`;
    page.on('request', (r) => {
      if (r.method() === 'GET' && new URL(r.url()).pathname.endsWith('/backups')) listCalls.push(r.url());
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await shot(page, 'failed-backups').catch(() => undefined);
  });
  after(async () => {
    await rig?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('is in the project menu for admins, empty at first', async () => {
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Backups' }).click();
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).to.equal(`/projects/${rig.fx.project.id}/backups`);
    await page.getByText('No backups yet. “Back up now” makes the first one.').waitFor();
    // End users are opt-in, for "Back up now" as for the schedule.
    const hint = page.locator('#include-users-hint');
    await hint
      .getByText('The archive leaves the end users out: a restore brings back no accounts.')
      .waitFor();
    expect(await page.getByRole('checkbox', { name: 'Include end users', exact: true }).isChecked()).to.equal(
      false,
    );
    await page.getByTestId('backup-schedule').getByRole('link', { name: 'the API reference' }).waitFor();
    await page.getByText('Now: 0 scheduled, 0 made on request.', { exact: false }).waitFor();
    await checkAxe(page, 'backups page, empty');
  });

  it('says where the schedule is set that its backups hold the end users only once an admin opts in', async () => {
    const card = page.getByRole('region', { name: 'Schedule and retention' });
    await card
      .getByText('The worker backs the project up once a day and keeps the newest 3 scheduled backups', {
        exact: false,
      })
      .waitFor();
    const box = card.getByRole('checkbox', { name: 'Include end users in scheduled backups' });
    expect(await box.isChecked()).to.equal(false);
    await card
      .getByText(
        'The archive leaves the end users out: a restore brings back no accounts. Off unless you opt in.',
      )
      .waitFor();
    const save = card.getByRole('button', { name: 'Save schedule' });
    expect(await save.isDisabled(), 'nothing changed yet').to.equal(true);
    await box.check();
    await card
      .getByText(/^The archive then holds the end users’ password hashes \(and their identities\)/)
      .waitFor();
    await save.click();
    await card
      .getByRole('status')
      .filter({ hasText: 'Saved: scheduled backups now hold the end users.' })
      .waitFor();
    const schedule = `/api/projects/${rig.fx.project.id}/backup-schedule`;
    expect((await dash.get(schedule)).body.data.schedule.includeUsers).to.equal(true);
    await checkAxe(page, 'schedule opted in to the end users');
    await box.uncheck();
    await save.click();
    await card
      .getByRole('status')
      .filter({ hasText: 'Saved: scheduled backups leave the end users out.' })
      .waitFor();
    expect((await dash.get(schedule)).body.data.schedule.includeUsers).to.equal(false);
  });

  it('backs up now: queued, a progress bar that moves, then done with a size', async () => {
    await page.getByRole('checkbox', { name: 'Include end users', exact: true }).check();
    await page
      .locator('#include-users-hint')
      .getByText(/^The archive then holds the end users’ password hashes/)
      .waitFor();
    await page.getByRole('button', { name: 'Back up now' }).click();
    await page.getByRole('status').filter({ hasText: 'Backup queued.' }).waitFor();
    await row().getByText('Queued').waitFor();
    await row().getByText('Waiting for the worker').waitFor();
    expect(await row().getByRole('progressbar').count()).to.equal(1);
    expect(await row().textContent()).to.include('Included, with password hashes');
    expect(
      await page.getByRole('button', { name: 'Back up now' }).isDisabled(),
      'one backup at a time',
    ).to.equal(true);
    await checkAxe(page, 'backup queued');

    const held = gate((job, done) => job.kind === 'backup' && done >= 500);
    const drained = runner({ onProgress: held.onProgress }).drain();
    await held.reached;
    await row().getByText('Running').waitFor();
    await row().getByText('500 of 1,203 documents').waitFor();
    const bar = row().getByRole('progressbar');
    expect(await bar.getAttribute('value')).to.equal('500');
    expect(await bar.getAttribute('max')).to.equal('1203');
    await checkAxe(page, 'backup running');
    await shot(page, 'backups-running');
    held.open();
    expect(await drained).to.equal(1);

    await row().getByText('Done').waitFor();
    expect(await row().getByRole('progressbar').count(), 'no bar once done').to.equal(0);
    const size = await row().getByTestId('backup-size').textContent();
    expect(size).to.match(/^\d+(\.\d)? (B|KB|MB)$/);
    expect(await row().textContent()).to.include('1,203 documents in 3 collections');
    const sha = (await dash.get(`/api/projects/${rig.fx.project.id}/backups`)).body.data.backups[0].sha256;
    expect(await row().locator('code').first().getAttribute('title')).to.equal(sha);
    expect(await row().locator('code').first().textContent()).to.equal(`${sha.slice(0, 12)}…`);
    await checkAxe(page, 'backup done');
    await shot(page, 'backups-done');

    // Settled: the page stops asking.
    const before = listCalls.length;
    await page.waitForTimeout(2500);
    expect(listCalls.length - before, 'no polling once every backup is settled').to.equal(0);
  });

  it('downloads the archive: a gzip whose manifest names the project', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download') as Promise<Download>,
      row().getByRole('button', { name: 'Download' }).click(),
    ]);
    const file = path.join(tmp, 'backup.tar.gz');
    await download.saveAs(file);
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 2)], 'gzip magic').to.deep.equal([0x1f, 0x8b]);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', file, 'manifest.json'], { encoding: 'utf8' }));
    expect(manifest.project).to.deep.equal({ id: rig.fx.project.id, name: 'Shop' });
    expect(manifest.formatVersion).to.equal(2);
    await page
      .getByText('The downloaded archive holds the end users’ password hashes: keep it safe.')
      .waitFor();
  });

  it('restores into a new project: keys shown once, the restore’s progress, then the same documents', async () => {
    await row().getByRole('button', { name: 'Restore into a new project' }).click();
    const panel = page.getByRole('region', { name: /^Restore the backup of .* into a new project$/ });
    await panel.waitFor();
    const sent: string[] = [];
    const track = (r: { method(): string; url(): string }) =>
      r.method() === 'POST' && sent.push(new URL(r.url()).pathname);
    page.on('request', track);
    await panel.getByLabel('New project name').fill('   ');
    await panel.getByRole('button', { name: 'Restore' }).click();
    await panel.getByText('Enter a name; spaces alone are not a name.').waitFor();
    expect(sent, 'checked in the browser: nothing sent').to.deep.equal([]);
    page.off('request', track);
    await checkAxe(page, 'restore form with an error');

    const held = gate((job, done) => job.kind === 'restore' && done > 0);
    await panel.getByLabel('New project name').fill('Shop restored');
    await panel.getByRole('button', { name: 'Restore' }).click();
    await panel.getByRole('heading', { name: 'Restoring into “Shop restored”' }).waitFor();
    const secretKey = await panel.getByTestId('key-secret').inputValue();
    expect(secretKey).to.match(/^sk_live_/);
    expect(await panel.getByTestId('key-publishable').inputValue()).to.match(/^pk_live_/);
    await panel.getByText('they are shown only this once').waitFor();
    const status = panel.getByTestId('restore-status');
    await status.getByText('Queued').waitFor();

    const drained = runner({ onProgress: held.onProgress }).drain();
    await held.reached;
    await status.getByText('Running').waitFor();
    // Held past its first documents (a poll may first see the platform parts done: 0 of 1,203).
    await status.getByText(/^[1-9][\d,]* of 1,203 documents$/).waitFor();
    expect(Number(await status.getByRole('progressbar').getAttribute('value'))).to.be.greaterThan(0);
    await checkAxe(page, 'restore running, keys shown');
    await shot(page, 'backups-restore-running');
    held.open();
    expect(await drained).to.equal(1);
    await status.getByText('Done').waitFor();
    await status.getByText('1,203 of 1,203 documents').waitFor();

    await panel.getByRole('link', { name: 'Open “Shop restored”' }).click();
    await page.getByText('Shop restored', { exact: true }).first().waitFor();
    restoredId = new URL(page.url()).pathname.split('/')[2]!;
    expect(restoredId).to.not.equal(rig.fx.project.id);
    await page.goto(`${rig.origin}/projects/${restoredId}/data/products`);
    for (const p of products) await page.getByText(p.name, { exact: true }).first().waitFor();
    await page.getByText('3 documents on this page').waitFor();
    // The key shown once works on the public API, for the restored project's data.
    const restored = await rig.publicApp.client.with({ 'x-api-key': secretKey }).get('/api/data/products');
    expect(restored.status, restored.text).to.equal(200);
    expect(restored.body.data.map((d: { name: string }) => d.name).sort()).to.deep.equal(
      products.map((p) => p.name).sort(),
    );
    // Shown once: back on the backups page, no key is there any more.
    await page.goto(backupsUrl);
    await row().first().waitFor();
    expect(await page.getByTestId('key-secret').count()).to.equal(0);
  });

  it('says "already under way", a failed backup and the plan’s limit in words', async () => {
    // Queued behind the page's back: the page still shows every backup settled.
    const queued = await dash.post(`/api/projects/${rig.fx.project.id}/backups`, { includeUsers: false });
    expect(queued.status, queued.text).to.equal(202);
    await page.getByRole('button', { name: 'Back up now' }).click();
    await page
      .getByRole('alert')
      .filter({
        hasText: 'A backup or restore of this project is already queued or running: wait until it is done',
      })
      .waitFor();
    await row().getByText('Left out').waitFor(); // the list was refreshed: the queued one shows
    await checkAxe(page, 'backup in progress refused');
    // A queued backup is polled while the page is open, and not once the page is left.
    const polled = listCalls.length;
    await page.waitForTimeout(1500);
    expect(listCalls.length, 'polled while queued').to.be.greaterThan(polled);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByText('Against your plan limits').waitFor();
    // The kept archives against the plan's backupBytes, next to the other limits.
    await page.getByRole('img', { name: /^Backups kept: .+ of .+ \(\d+%\)$/ }).waitFor();
    const left = listCalls.length;
    await page.waitForTimeout(2500);
    expect(listCalls.length - left, 'no polling after leaving the page').to.equal(0);
    // That one fails in the worker: the list says so, with the job's error.
    const failing = runner({
      onProgress: async () => {
        throw new Error('the store is full (a test)');
      },
    });
    expect(await failing.drain()).to.equal(1);
    await page.goBack();
    await row().first().getByText('Failed: the store is full (a test)').waitFor();
    expect(await row().first().getByRole('button', { name: 'Download' }).count()).to.equal(0);
    await checkAxe(page, 'a failed backup');
    // Free keeps 3 backups made on request (failed ones do not count): this page made one; two more
    // fill it.
    for (let i = 0; i < 2; i++) {
      expect((await dash.post(`/api/projects/${rig.fx.project.id}/backups`, {})).status).to.equal(202);
      expect(await runner().drain()).to.equal(1);
    }
    await page.reload();
    await row().nth(3).waitFor();
    await page.getByRole('button', { name: 'Back up now' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Plan limit reached: the plan keeps 3 backups made on request; delete one first.' })
      .waitFor();
    await checkAxe(page, 'plan limit');
    await shot(page, 'backups-plan-limit');
  });

  it('deletes a backup only after confirming in the app’s dialog', async () => {
    const before = await row().count();
    const oldest = row().last();
    const label = (await oldest.locator('time').textContent())!;
    await oldest.getByRole('button', { name: `Delete the backup of ${label}` }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Its archive is deleted from the store').waitFor();
    await checkAxe(page, 'delete dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await row().count()).to.equal(before);
    await oldest.getByRole('button', { name: `Delete the backup of ${label}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete backup' }).click();
    await page.getByRole('status').filter({ hasText: 'Backup deleted.' }).waitFor();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=backup-row]').length === n,
      before - 1,
    );
    const listed = await dash.get(`/api/projects/${rig.fx.project.id}/backups`);
    expect(listed.body.data.backups).to.have.length(before - 1);
  });

  it('fits a phone: nothing scrolls sideways outside the table', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(backupsUrl);
      await row().first().waitFor();
      expect(await sidewaysOverflow(page)).to.be.at.most(0);
      await checkAxe(page, 'backups page at phone width');
      await shot(page, 'backups-phone');
      await row().first().getByRole('button', { name: 'Restore into a new project' }).click();
      await page.getByLabel('New project name').waitFor();
      expect(await sidewaysOverflow(page)).to.be.at.most(0);
      await checkAxe(page, 'restore form at phone width');
      await shot(page, 'backups-restore-phone');
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it('tells a member that only admins have backups, as the other admin pages do, and no Backups in the menu', async () => {
    const member = await createDeveloper(rig.dashboard.services);
    await rig.dashboard.services.members.add(rig.fx.project, member.developer.email, 'member');
    const context = await rig.browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const [name, value] = member.cookie.split('=') as [string, string];
      await context.addCookies([{ name, value, url: rig.origin }]);
      const other = await context.newPage();
      await other.goto(backupsUrl);
      // The project's router answers admin-only pages for a member (a1518c8, admins-only.tsx).
      await other.getByText(/^Only admins can make, download or restore this project’s backups\./).waitFor();
      const menu = other.getByRole('navigation', { name: 'Project' });
      await menu.getByRole('link', { name: 'Collections' }).waitFor();
      expect(await menu.getByRole('link', { name: 'Backups' }).count()).to.equal(0);
      expect(await other.getByRole('button', { name: 'Back up now' }).count()).to.equal(0);
    } finally {
      await context.close();
    }
  });

  it('exports a collection as CSV and imports it into another, the invalid row named, and a file past the body limit', async () => {
    const dataUrl = (name: string) => `${rig.origin}/projects/${rig.fx.project.id}/data/${name}`;
    await page.goto(dataUrl('products'));
    await page.getByRole('heading', { name: 'Export and import' }).waitFor();
    await checkAxe(page, 'data page with export and import');
    const [download] = await Promise.all([
      page.waitForEvent('download') as Promise<Download>,
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).to.equal('products.csv');
    const csvFile = path.join(tmp, 'products.csv');
    await download.saveAs(csvFile);
    const csv = readFileSync(csvFile, 'utf8');
    expect(csv.split('\r\n')[0]).to.equal('_id,name,sku,price,createdAt,updatedAt');
    expect(csv).to.include('"Gadget, ""quoted"""');
    // Row 5 (the header is row 1): no name, and a price that is no number.
    const broken = `${csv},,x-9,not a number,,\r\n`;

    await page.goto(dataUrl('copy'));
    await page.getByText('No documents yet.').waitFor();
    const form = page.getByRole('form', { name: 'Import into copy' });
    await form.getByRole('button', { name: 'Import' }).click();
    await form.getByRole('alert').getByText('Choose a file to import.').waitFor();
    await form.getByLabel('File', { exact: true }).setInputFiles({
      name: 'products.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(broken),
    });
    expect(await form.getByLabel('Import format').inputValue(), 'guessed from the name').to.equal('csv');
    await form.getByRole('button', { name: 'Import' }).click();
    const result = page.getByTestId('import-result');
    await result
      .getByRole('alert')
      .getByText(/^Row \d+ is invalid; nothing was imported \(the rows after it were not read\)/)
      .waitFor();
    const rejected = () =>
      result.getByTestId('rejected-row').evaluateAll((rows) =>
        rows.map((r) =>
          [...r.children]
            .slice(0, 2)
            .map((c) => c.textContent)
            .join(' '),
        ),
      );
    expect(await rejected()).to.have.members(['5 name', '5 price']);
    const reasons = await result.getByTestId('rejected-row').locator('td:last-child').allTextContents();
    expect(
      reasons.every((r) => r.trim().length > 0),
      'a reason in words for each',
    ).to.equal(true);
    await page.getByText('No documents yet.').waitFor();
    await checkAxe(page, 'import refused, rows named');
    await shot(page, 'import-refused');

    await form.getByLabel('Skip invalid rows: import the others').check();
    await form.getByRole('button', { name: 'Import' }).click();
    await result.getByRole('status').getByText('3 rows imported; 1 rejected.').waitFor();
    expect(await rejected()).to.have.members(['5 name', '5 price']);
    for (const p of products) await page.getByText(p.name, { exact: true }).first().waitFor();
    await page.getByText('3 documents on this page').waitFor();
    await checkAxe(page, 'import with a skipped row');
    await shot(page, 'import-skipped');

    // A file past the JSON body limit: the card sends the file itself as the body, streamed.
    const lines = Array.from({ length: 2500 }, (_, i) => `,Bulk item ${i},bulk-${i},${i},,`);
    const big = `_id,name,sku,price,createdAt,updatedAt\r\n${lines.join('\r\n')}\r\n`;
    expect(Buffer.byteLength(big)).to.be.above(BODY_LIMIT);
    await form.getByLabel('File', { exact: true }).setInputFiles({
      name: 'bulk.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(big),
    });
    await form.getByRole('button', { name: 'Import' }).click();
    await result.getByRole('status').getByText('2500 rows imported.').waitFor();

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      expect(await sidewaysOverflow(page)).to.be.at.most(0);
      await checkAxe(page, 'data page at phone width');
      await shot(page, 'import-phone');
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
    // The refusals this flow makes on purpose: 409 (already under way), 403 (plan), 400 (import),
    // and the member's 404.
    expect(rig.consoleErrors.filter((m) => !/\b(400|403|404|409)\b/.test(m))).to.deep.equal([]);
  });
});
