// The document form in a developer's first minutes, in a real browser: each field shows its
// current problem and nothing else (no banner repeating them), nothing is sent while a required
// field is empty, defaults are prefilled, the API's message about a field stays under it until
// the field changes, and a document in the trash is read-only with Restore.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { contextFor } from '../helpers/fixtures.js';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('first minutes: the document form', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let base: string;
  /** Document writes the page sent. */
  const sent: string[] = [];
  const secret = () => e2e.publicApp.client.with({ 'x-api-key': e2e.owner.secretKey });

  before(async () => {
    e2e = await startDashboardE2E('first_minutes_documents');
    page = e2e.page;
    await e2e.dashboard.services.collections.create(
      contextFor({ developer: e2e.owner.developer }),
      e2e.owner.project.id,
      {
        name: 'posts',
        mode: 'schema',
        fields: [
          { name: 'title', type: 'String', required: true, unique: true },
          { name: 'tags', type: 'Array' },
          { name: 'status', type: 'String', default: 'draft' },
          { name: 'views', type: 'Number', default: 0 },
        ],
      },
    );
    base = `${e2e.origin}${e2e.projectPath}/data/posts`;
    page.on('request', (r) => {
      if (r.url().includes('/data/posts') && r.method() !== 'GET') sent.push(`${r.method()} ${r.url()}`);
    });
  });
  shootFailures('first-minutes-documents', () => e2e);
  after(() => e2e?.close());

  /** The message under a field of the form (its label starts with the field's name). */
  const under = (field: string) => page.locator(`#doc-${field}-err`);
  const banner = () => page.locator('.error[role=alert]');

  it('4. shows each field’s current problem, under it only, and sends nothing until they are fixed', async () => {
    await page.goto(`${base}/new`);
    await page.getByRole('heading', { name: 'New document in posts' }).waitFor();
    // 10. Defaults are prefilled.
    expect(await page.locator('#doc-status').inputValue()).to.equal('draft');
    expect(await page.locator('#doc-views').inputValue()).to.equal('0');
    sent.length = 0;
    await page.locator('#doc-tags').fill('["a",');
    await page.getByRole('button', { name: 'Add document' }).click();
    await under('title').getByText('Required.').waitFor();
    expect(await under('tags').textContent()).to.equal(
      'This is not valid JSON: check the brackets, quotes and commas.',
    );
    expect(sent, 'an empty required field is not sent').to.deep.equal([]);
    expect(await banner().count(), 'no banner repeating the fields').to.equal(0);
    // Each message follows its field: the title filled, its message goes; the tags' stays.
    await page.locator('#doc-title').fill('Hello');
    await under('title').waitFor({ state: 'detached' });
    expect(await under('tags').count()).to.equal(1);
    await e2e.checkPage('first-minutes-document-problems');
    await page.locator('#doc-tags').fill('["a"]');
    await under('tags').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByRole('heading', { name: /^Document [0-9a-f]{24}$/ }).waitFor();
    const stored = (await secret().get('/api/data/posts', { query: { title: 'Hello' } })).body.data[0];
    expect(stored).to.deep.include({ title: 'Hello', tags: ['a'], status: 'draft', views: 0 });
  });

  it('4. puts the API’s refusal under its field, once, until the field changes', async () => {
    await page.goto(`${base}/new`);
    await page.locator('#doc-title').fill('Hello');
    await page.getByRole('button', { name: 'Add document' }).click();
    await under('title').waitFor();
    const said = (await under('title').textContent()) ?? '';
    expect(said).to.match(/title/);
    expect(await page.getByText(said, { exact: true }).count(), 'said once').to.equal(1);
    expect(await banner().count()).to.equal(0);
    await page.locator('#doc-title').fill('Hello again');
    await under('title').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByRole('heading', { name: /^Document [0-9a-f]{24}$/ }).waitFor();
  });

  it('5. shows a document in the trash read-only, with Restore', async () => {
    const made = await secret().post('/api/data/posts', { title: 'Old news' });
    const id = made.body.data._id as string;
    expect((await secret().delete(`/api/data/posts/${id}`)).status).to.equal(200);
    await page.goto(`${base}/${id}`);
    await page.getByText('It is read-only: restore it to edit it.', { exact: false }).waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).count()).to.equal(0);
    expect(await page.locator('#doc-title').isDisabled()).to.equal(true);
    expect(await page.locator('#doc-tags').isDisabled()).to.equal(true);
    await e2e.checkPage('first-minutes-document-trashed');
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Restored from the trash.').waitFor();
    await page.getByRole('button', { name: 'Save' }).waitFor();
    expect(await page.locator('#doc-title').isDisabled()).to.equal(false);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
