// RLS that cannot fail silently, in a real browser: the collection editor's owner field is chosen
// among the collection's String fields and Refs to users (no `userId` preselected where there is none),
// and a member adding a document to a private collection picks its owner among the end users,
// or sees that no end user will be able to read it.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { contextFor } from '../helpers/fixtures.js';
import { USER_BASE_FIELDS } from '../helpers/user-auth.js';
import { checkAxe, shot, sidewaysOverflow, startRig, type DataBrowserRig } from './data-shared.js';

describe('RLS owner in a real browser', function () {
  this.timeout(120_000);
  let rig: DataBrowserRig;
  let page: Page;
  let base: string;
  let aliceId: string;

  before(async () => {
    rig = await startRig('data_rls');
    page = rig.page;
    const { fx, dashboard } = rig;
    const ctx = contextFor({ developer: fx.developer });
    await dashboard.services.collections.create(ctx, fx.project.id, {
      name: 'users',
      mode: 'schema',
      fields: USER_BASE_FIELDS,
    });
    await dashboard.services.collections.create(ctx, fx.project.id, {
      name: 'diaries',
      mode: 'schema',
      fields: [
        { name: 'title', type: 'String' },
        { name: 'writer', type: 'String' },
        { name: 'pages', type: 'Number' },
      ],
    });
    const signup = await rig.publicApp.client
      .with({ 'x-api-key': fx.publishableKey })
      .post('/api/userAuth/signup', { email: 'alice@example.test', password: 'correct horse battery' });
    expect(signup.status, signup.text).to.equal(201);
    aliceId = signup.body.data.user._id;
    base = `${rig.origin}/projects/${fx.project.id}`;
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await shot(page, 'failed-data-rls').catch(() => undefined);
  });
  after(() => rig?.close());

  it('chooses the owner field among the collection’s String fields', async () => {
    await page.goto(`${base}/collections/diaries`);
    await page.getByRole('checkbox', { name: /^Enabled/ }).check();
    const owner = page.getByLabel('Owner field', { exact: true });
    expect(await owner.inputValue()).to.equal('');
    const options = await owner.locator('option').allTextContents();
    expect(options).to.deep.equal(['Choose a field…', 'title', 'writer']);
    await page.getByText('Choose the field that holds the owning end user’s id.').waitFor();
    await page.getByLabel('Reads').selectOption('private');
    await owner.selectOption('writer');
    await page.getByText('End users own the documents whose “writer” holds their id.').waitFor();
    await checkAxe(page, 'collection editor RLS');
    await shot(page, 'collection-editor-rls-owner');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Collection saved.').waitFor();
    const def = await rig.dashboard.services.repos.collections.findByName(rig.fx.project.id, 'diaries');
    expect(def?.rls).to.deep.include({ enabled: true, mode: 'private', ownerField: 'writer' });
  });

  it('warns that nobody can read an ownerless private document, and picks an end user as owner', async () => {
    await page.goto(`${base}/data/diaries/new`);
    const warning = page.getByText('No owner chosen: this collection is private');
    await warning.waitFor();
    await checkAxe(page, 'new private document');
    await shot(page, 'document-private-no-owner');
    await page.getByRole('button', { name: 'Choose an owner' }).click();
    await page.getByLabel('Email or name contains').fill('ali');
    await page.getByRole('button', { name: /^alice@example\.test/ }).click();
    await warning.waitFor({ state: 'detached' });
    expect(await page.getByLabel(/^writer/).inputValue()).to.equal(aliceId);
    await page.getByLabel(/^title/).fill('Day one');
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByRole('heading', { name: /^Document [0-9a-f]{24}$/ }).waitFor();
    const docs = await rig.publicApp.client
      .with({ 'x-api-key': rig.fx.secretKey })
      .get('/api/data/diaries', { query: { title: 'Day one' } });
    expect(docs.body.data[0].writer).to.equal(aliceId);
    await checkAxe(page, 'document page');
    await shot(page, 'document-private-owner');
    // The document page at a phone's width: no sideways scroll.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('heading', { name: /^Document [0-9a-f]{24}$/ }).waitFor();
    expect(await sidewaysOverflow(page)).to.be.at.most(0);
    await shot(page, 'phone-document');
    await page.goto(`${base}/data/diaries/new`);
    await page.getByText('No owner chosen: this collection is private').waitFor();
    expect(await sidewaysOverflow(page)).to.be.at.most(0);
    await checkAxe(page, 'new private document at phone width');
    expect(rig.consoleErrors).to.deep.equal([]);
  });
});
