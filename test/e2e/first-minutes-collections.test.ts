// The collection editor in a developer's first minutes, in a real browser: the RLS owner asked
// for in words and chosen only among fields that can hold an end user's id (or added), a
// flexible collection made with no field, and every problem of a definition named at once under
// its control with nothing sent.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { contextFor } from '../helpers/fixtures.js';
import { USER_BASE_FIELDS } from '../helpers/user-auth.js';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('first minutes: the collection editor', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  /** Collection writes the page sent (a refused form must send none). */
  const sent: string[] = [];

  before(async () => {
    e2e = await startDashboardE2E('first_minutes_collections');
    page = e2e.page;
    const ctx = contextFor({ developer: e2e.owner.developer });
    const { collections } = e2e.dashboard.services;
    await collections.create(ctx, e2e.owner.project.id, {
      name: 'users',
      mode: 'schema',
      fields: USER_BASE_FIELDS,
    });
    await collections.create(ctx, e2e.owner.project.id, {
      name: 'books',
      mode: 'schema',
      fields: [{ name: 'title', type: 'String' }],
    });
    page.on('request', (r) => {
      if (/\/collections(\/[^/]+)?$/.test(new URL(r.url()).pathname) && r.method() !== 'GET')
        sent.push(`${r.method()} ${r.url()}`);
    });
  });
  shootFailures('first-minutes-collections', () => e2e);
  after(() => e2e?.close());

  const stored = (name: string) =>
    e2e.dashboard.services.repos.collections.findByName(e2e.owner.project.id, name);
  const open = async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/collections/new`);
    await page.getByLabel('Collection name').waitFor();
    sent.length = 0;
  };
  const create = () => page.getByRole('button', { name: 'Create collection' }).click();
  /** The message shown under a control, found by the control's id. */
  const messageUnder = (id: string) => page.locator(`#${id}`).locator('xpath=..').locator('.field-error');

  it('1. asks for the RLS owner in words, offers only fields that can hold a user id, adds ownerId', async () => {
    await open();
    await page.getByLabel('Collection name').fill('notes');
    await page.locator('#fe-fields-0-name').fill('title');
    for (const [i, name, type, ref] of [
      [1, 'book', 'Ref', 'books'],
      [2, 'author', 'Ref', 'users'],
      [3, 'pages', 'Number', ''],
    ] as const) {
      await page.getByRole('button', { name: 'Add field' }).click();
      await page.locator(`#fe-fields-${i}-name`).fill(name);
      await page.locator(`#fe-fields-${i}-type`).selectOption(type);
      if (ref) await page.locator(`#fe-fields-${i}-ref`).selectOption(ref);
    }
    await page.getByRole('checkbox', { name: /^Enabled/ }).check();
    const owner = page.getByLabel('Owner field', { exact: true });
    expect(await owner.locator('option').allTextContents()).to.deep.equal([
      'Choose a field…',
      'title',
      'author',
    ]);
    await create();
    await page.locator('#rls-owner-msg').getByText('Choose which field holds the owner’s user id.').waitFor();
    expect(sent, 'nothing is sent').to.deep.equal([]);
    expect(await page.getByText('is not a field of this collection').count()).to.equal(0);
    await e2e.checkPage('first-minutes-rls-owner-missing');

    // With no field that fits, the editor offers to add one, and chooses it.
    for (let i = 3; i >= 0; i--) await page.locator(`#fe-fields-${i}-type`).selectOption('Number');
    expect(await owner.isDisabled()).to.equal(true);
    await page
      .getByText('No field can hold an end user’s id: it takes a String field (or a Ref to users).')
      .waitFor();
    await page.getByRole('button', { name: 'Add an ownerId field' }).click();
    expect(await page.locator('#fe-fields-4-name').inputValue()).to.equal('ownerId');
    expect(await owner.inputValue()).to.equal('ownerId');
    await e2e.checkPage('first-minutes-rls-owner-added');
    await create();
    await page.getByRole('heading', { name: 'Collection “notes”' }).waitFor();
    const def = await stored('notes');
    expect(def?.rls).to.deep.include({ enabled: true, ownerField: 'ownerId' });
    expect(def?.fields.find((f) => f.name === 'ownerId')).to.include({ type: 'String' });
  });

  it('2. makes a flexible collection with no field at all', async () => {
    await open();
    await page.getByLabel('Collection name').fill('events');
    // Schema mode with the row removed: the message stands on its own line, apart from the button.
    await page.getByRole('button', { name: 'Remove field (unnamed)' }).click();
    await create();
    const message = page.getByText(
      'A schema collection needs at least one field: add one, or choose Flexible.',
    );
    await message.waitFor();
    const [said, button] = [
      await message.boundingBox(),
      await page.getByRole('button', { name: 'Add field' }).boundingBox(),
    ];
    expect(said!.y + said!.height, 'message above the button').to.be.at.most(button!.y);
    expect(sent).to.deep.equal([]);
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel(/^Flexible/).check();
    // The blank row a new form starts with goes; the editor says what a field would add.
    expect(await page.locator('#fe-fields-0-name').count()).to.equal(0);
    await page.getByText('No declared field: documents are stored as sent.', { exact: false }).waitFor();
    await e2e.checkPage('first-minutes-flexible-no-field');
    await create();
    await page.getByRole('heading', { name: 'Collection “events”' }).waitFor();
    expect(await stored('events')).to.deep.include({ mode: 'flexible', fields: [] });
    // Any JSON goes in.
    const written = await e2e.publicApp.client
      .with({ 'x-api-key': e2e.owner.secretKey })
      .post('/api/data/events', { kind: 'click', at: { x: 1 } });
    expect(written.status, written.text).to.equal(201);
    // Its data page lists it, the undeclared keys as they came.
    await page.goto(`${e2e.origin}${e2e.projectPath}/data/events`);
    await page.getByRole('gridcell', { name: /click/ }).first().waitFor();
    await e2e.checkPage('first-minutes-flexible-data');
  });

  it('3. names every problem of a definition at once, under its control, before sending', async () => {
    await open();
    await page.getByLabel('Collection name').fill('orders');
    // An empty name, a duplicate and a Ref with no target.
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.locator('#fe-fields-1-name').fill('item');
    await page.locator('#fe-fields-2-name').fill('item');
    await page.locator('#fe-fields-2-type').selectOption('Ref');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.locator('#fe-fields-3-name').fill('tags');
    await page.locator('#fe-fields-3-type').selectOption('Array');
    await page.locator('#fe-fields-3-items').selectOption('Ref');
    await create();
    await messageUnder('fe-fields-0-name').getByText('Required.').waitFor();
    expect(await messageUnder('fe-fields-2-name').textContent()).to.equal(
      'Another field here is named “item”.',
    );
    expect(await messageUnder('fe-fields-2-ref').textContent()).to.equal(
      'Choose the collection it refers to.',
    );
    expect(await messageUnder('fe-fields-3-itemref').textContent()).to.equal(
      'Choose the collection its items refer to.',
    );
    expect(await messageUnder('fe-fields-1-name').count(), 'the first "item" is fine').to.equal(0);
    for (const control of ['fe-fields-0-name', 'fe-fields-2-name', 'fe-fields-2-ref', 'fe-fields-3-itemref'])
      expect(await page.locator(`#${control}`).getAttribute('aria-invalid'), control).to.equal('true');
    expect(sent, 'nothing is sent').to.deep.equal([]);
    await e2e.checkPage('first-minutes-definition-problems');
    // Fixed, it is created.
    await page.locator('#fe-fields-0-name').fill('number');
    await page.locator('#fe-fields-2-name').fill('book');
    await page.locator('#fe-fields-2-ref').selectOption('books');
    await page.locator('#fe-fields-3-itemref').selectOption('books');
    await create();
    await page.getByRole('heading', { name: 'Collection “orders”' }).waitFor();
    expect((await stored('orders'))?.fields.map((f) => f.name)).to.deep.equal([
      'number',
      'item',
      'book',
      'tags',
    ]);
  });

  it('11. the editor with RLS on fits a 390 px phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${e2e.origin}${e2e.projectPath}/collections/notes`);
      await page.getByLabel('Reads').waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).to.equal(390);
      const rls = await page.locator('fieldset', { hasText: 'Row-level security' }).boundingBox();
      expect(rls!.x + rls!.width).to.be.at.most(390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
