// A collection's Indexes page in a real browser: the implied and declared indexes with the plan's
// limit, an index declared from the form (checked in the browser first), a unique index over
// repeating values refused with the values named, a declared index dropped after confirming; a
// slow list made through the public API shown beside them with "Create this index", which
// creates it and shows the shape served; and the overview's embedded engine warning once a
// collection holds 10,000 documents. axe on each state and a phone-width pass.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { ApiClient } from '../helpers/client.js';
import { contextFor } from '../helpers/fixtures.js';
import { EMBEDDED_WARN_DOCUMENTS } from '../../src/services/health.js';
import { checkAxe, shot, sidewaysOverflow, startRig, type DataBrowserRig } from './data-shared.js';

describe('Indexes page in a real browser', function () {
  this.timeout(120_000);
  let rig: DataBrowserRig;
  let page: Page;
  let secret: ApiClient;
  let dash: ApiClient;
  let indexesUrl: string;
  const sent: string[] = [];

  /** The text of each row of the indexes table, by index name. */
  const indexRow = (name: string) =>
    page.locator('section[aria-labelledby=indexes-heading] tbody tr').filter({ hasText: name });

  before(async () => {
    // Every list is "slow" (SLOW_QUERY_MS=0); the engine is reported as the embedded one.
    rig = await startRig('web_indexes', { SLOW_QUERY_MS: '0', EMBEDDED_DATABASE: 'true' });
    page = rig.page;
    const { fx, dashboard } = rig;
    await dashboard.services.collections.create(contextFor({ developer: fx.developer }), fx.project.id, {
      name: 'orders',
      mode: 'schema',
      fields: [
        { name: 'sku', type: 'String', unique: true },
        { name: 'status', type: 'String' },
        { name: 'total', type: 'Number' },
        { name: 'placedAt', type: 'Date' },
        { name: 'address', type: 'Object', fields: [{ name: 'city', type: 'String' }] },
      ],
    } as never);
    await dashboard.services.collections.create(contextFor({ developer: fx.developer }), fx.project.id, {
      name: 'events',
      mode: 'flexible',
      fields: [{ name: 'kind', type: 'String' }],
    });
    secret = rig.publicApp.client.with({ 'x-api-key': fx.secretKey });
    dash = dashboard.client.with({ cookie: fx.cookie });
    const orders = [
      { sku: 'A1', status: 'open', total: 10 },
      { sku: 'A2', status: 'open', total: 25 },
      { sku: 'A3', status: 'shipped', total: 40 },
    ];
    for (const o of orders) expect((await secret.post('/api/data/orders', o)).status).to.equal(201);
    indexesUrl = `${rig.origin}/projects/${fx.project.id}/collections/orders/indexes`;
    page.on(
      'request',
      (r) => r.method() !== 'GET' && sent.push(`${r.method()} ${new URL(r.url()).pathname}`),
    );
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await shot(page, 'failed-indexes').catch(() => undefined);
  });
  after(() => rig?.close());

  it('is linked from the collections list and shows the implied index and the plan limit', async () => {
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}/collections`);
    await page
      .getByRole('row', { name: /orders/ })
      .getByRole('link', { name: 'Indexes' })
      .click();
    await page.getByRole('heading', { name: 'Indexes of “orders”' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal(
      `/projects/${rig.fx.project.id}/collections/orders/indexes`,
    );
    await page.getByTestId('index-limit').getByText('0 of 5 indexes on Free.').waitFor();
    const implied = indexRow('u_sku');
    await implied.waitFor();
    expect(await implied.textContent())
      .to.include('sku ascending')
      .and.include('Unique field');
    expect(await implied.getByRole('button').count(), 'an implied index cannot be dropped').to.equal(0);
    await checkAxe(page, 'indexes page');
  });

  it('checks the new index in the browser and says what is wrong in words, sending nothing', async () => {
    const before = sent.length;
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.locator('#key-0-field-err').getByText('Required.').waitFor();
    await page.getByLabel('Key 1: field').selectOption('status');
    await page.getByLabel('Expire documents (TTL)').check();
    await page.getByLabel('Expire after (seconds)').fill('86400');
    // After a first try the form checks itself as it changes.
    await page.getByText('A TTL index needs a Date field; status is String.').waitFor();
    await page.getByLabel('Key 1: field').selectOption('placedAt');
    await page.getByText('That is 1 day after the date.').waitFor();
    await page.getByLabel('Expire after (seconds)').fill('-5');
    await page.getByText('At least 0.').waitFor();
    await checkAxe(page, 'index form with errors');
    expect(sent.slice(before), 'nothing was sent').to.deep.equal([]);
    await page.getByLabel('Expire documents (TTL)').uncheck();
  });

  it('declares an index from the collection’s fields and lists it', async () => {
    await page.getByLabel('Key 1: field').selectOption('status');
    await page.getByRole('button', { name: 'Add a key' }).click();
    await page.getByLabel('Key 2: field').selectOption('address.city');
    await page.locator('#key-1-direction').selectOption('-1');
    await page.getByRole('button', { name: 'Create index' }).click();
    const row = indexRow('status_1_address.city_-1');
    await row.waitFor();
    expect(await row.textContent())
      .to.include('status ascending, address.city descending')
      .and.include('Declared');
    await page.getByTestId('index-limit').getByText('1 of 5 indexes on Free.').waitFor();
    const listed = await dash.get(`/api/projects/${rig.fx.project.id}/collections/orders/indexes`);
    expect(listed.body.data.indexes.map((i: { name: string }) => i.name)).to.include(
      'status_1_address.city_-1',
    );
    await shot(page, 'indexes-page');
  });

  it('refuses a unique index over repeating values, naming them', async () => {
    await page.getByLabel('Key 1: field').selectOption('status');
    await page.getByLabel('Unique: no two active documents share these values').check();
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.getByRole('alert').filter({ hasText: 'Cannot make "status" unique' }).waitFor();
    const values = page.getByTestId('duplicate-values');
    await values.getByText('"open" is used by 2 documents').waitFor();
    expect(await indexRow('status_1').count(), 'nothing was created').to.equal(1); // the compound one only
    await checkAxe(page, 'duplicate values refused');
    await shot(page, 'indexes-duplicate-values');
    await page.getByLabel('Unique: no two active documents share these values').uncheck();
  });

  it('drops a declared index only after confirming', async () => {
    const name = 'status_1_address.city_-1';
    await page.getByRole('button', { name: `Drop index ${name}` }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('status ascending, address.city descending').waitFor();
    await checkAxe(page, 'drop dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await indexRow(name).waitFor();
    await page.getByRole('button', { name: `Drop index ${name}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Drop index' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Index ${name} dropped.` })
      .waitFor();
    expect(await indexRow(name).count()).to.equal(0);
    await page.getByTestId('index-limit').getByText('0 of 5 indexes on Free.').waitFor();
  });

  it('shows a slow list beside the indexes, and "Create this index" makes it served', async () => {
    const list = await secret.get('/api/data/orders?status=open&sort=-total');
    expect(list.status, list.text).to.equal(200);
    // The record is written after the answer, in the background.
    const path = `/api/projects/${rig.fx.project.id}/slow-queries?collection=orders`;
    let shape: { suggestedIndex: { field: string; direction: number }[] | null } | undefined;
    for (let i = 0; i < 50 && !shape; i++) {
      const res = await dash.get(path);
      shape = res.body.data.queries.find(
        (q: { filter: { equality: string[] } }) => q.filter.equality.join() === 'status',
      );
      if (!shape) await new Promise((r) => setTimeout(r, 100));
    }
    expect(shape?.suggestedIndex).to.deep.equal([
      { field: 'status', direction: 1 },
      { field: 'total', direction: -1 },
      { field: '_id', direction: 1 },
    ]);
    await page.reload();
    const row = page.getByTestId('slow-query').filter({ hasText: 'equal: status' });
    await row.waitFor();
    expect(await row.textContent()).to.include('total descending, _id ascending');
    expect(await row.textContent()).to.not.include('Served by');
    await checkAxe(page, 'slow queries');
    await shot(page, 'indexes-slow-query');
    await row.getByRole('button', { name: 'Create this index' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('status ascending, total descending, _id ascending').waitFor();
    await dialog.getByRole('button', { name: 'Create index' }).click();
    await row.getByText('Served by status_1_total_-1__id_1').waitFor();
    expect(await row.getByRole('button', { name: 'Create this index' }).count()).to.equal(0);
    await indexRow('status_1_total_-1__id_1').waitFor();
    await shot(page, 'indexes-slow-query-served');
    await page.getByRole('button', { name: 'Forget these slow queries' }).click();
    await page.getByText('No slow queries recorded for this collection.').waitFor();
  });

  it('says when the plan’s limit is reached, and creates no more', async () => {
    const path = `/api/projects/${rig.fx.project.id}/collections/orders/indexes`;
    for (const field of ['total', 'placedAt', 'address.city', 'createdAt']) {
      expect((await dash.post(path, { keys: [{ field, direction: 1 }] })).status).to.equal(201);
    }
    await page.reload();
    await page
      .getByTestId('index-limit')
      .getByText('5 of 5 indexes on Free. Drop one to declare another, or move to a larger plan.')
      .waitFor();
    expect(await page.getByTestId('index-limit').getAttribute('class')).to.equal('warning');
    expect(await page.getByRole('button', { name: 'Create index' }).isDisabled()).to.equal(true);
    await checkAxe(page, 'indexes at the plan limit');
  });

  it('takes a typed path on a flexible collection, where only the timestamps can expire', async () => {
    await page.goto(`${rig.origin}/projects/${rig.fx.project.id}/collections/events/indexes`);
    await page.getByRole('heading', { name: 'Indexes of “events”' }).waitFor();
    const field = page.getByLabel('Key 1: field');
    await field.fill('meta.source');
    await page.getByLabel('Expire documents (TTL)').check();
    await page.getByLabel('Expire after (seconds)').fill('3600');
    await page.getByRole('button', { name: 'Create index' }).click();
    await page
      .getByText(/A TTL index on a flexible collection needs createdAt or updatedAt; meta.source/)
      .waitFor();
    await page.getByLabel('Expire documents (TTL)').uncheck();
    await page.getByRole('button', { name: 'Create index' }).click();
    await indexRow('meta.source_1').waitFor();
    await checkAxe(page, 'indexes of a flexible collection');
  });

  it('fits a phone: nothing scrolls sideways outside the tables', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(indexesUrl);
      await indexRow('u_sku').waitFor();
      expect(await sidewaysOverflow(page)).to.be.at.most(0);
      await checkAxe(page, 'indexes page at phone width');
      await shot(page, 'indexes-phone');
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it('warns on the overview once a collection passes the embedded engine’s documented size', async () => {
    const overview = `${rig.origin}/projects/${rig.fx.project.id}`;
    await page.goto(overview);
    await page.getByRole('heading', { name: 'Against your plan limits' }).waitFor();
    expect(await page.getByTestId('engine-warning').count(), 'no warning below the size').to.equal(0);
    // 10,000 documents straight into the project database: the size is what is tested, not writes.
    const started = Date.now();
    await rig.dashboard.deps.db
      .project(rig.fx.project.id)
      .collection('orders')
      .insertMany(
        Array.from({ length: EMBEDDED_WARN_DOCUMENTS }, (_, n) => ({ sku: `bulk-${n}`, total: n })),
      );
    console.log(`      (seeded ${EMBEDDED_WARN_DOCUMENTS} documents in ${Date.now() - started} ms)`);
    await page.reload();
    const warning = page.getByTestId('engine-warning');
    await warning.getByText(/"orders" holds 10,00\d documents/).waitFor();
    expect(await warning.textContent()).to.include('MONGODB_URI');
    await checkAxe(page, 'overview with the engine warning');
    await shot(page, 'overview-engine-warning');
    // The one refused call the flow makes on purpose (the unique index over repeating values).
    expect(rig.consoleErrors.filter((m) => !/409 \(Conflict\)/.test(m))).to.deep.equal([]);
  });
});
