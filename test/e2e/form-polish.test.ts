// The forms of a team's first week, in a real browser (issue 44, item 7): a picked Ref reads as
// the grid reads it (its display field, the id on hover); required fields are marked for screen
// readers, each problem is tied to its input and the first one gets the focus; the Reads select
// shows its whole choice at 390 px; an invitation's link fills in the invited address.
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { contextFor } from '../helpers/fixtures.js';
import { mailbox } from '../helpers/mail.js';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

/** The text of the elements an input's aria-describedby names, as a screen reader reads them. */
const description = (input: Locator) =>
  input.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent?.trim() ?? `(no element #${id})`)
      .join(' | '),
  );
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

describe('forms: Ref labels, required fields, problems, focus, phone width, invitations', function () {
  this.timeout(180_000);
  let e2e: DashboardE2E;
  let page: Page;
  let base: string;
  let ada: string;
  let book: string;

  before(async () => {
    e2e = await startDashboardE2E('form_polish');
    page = e2e.page;
    const ctx = contextFor({ developer: e2e.owner.developer });
    const create = (def: Parameters<typeof e2e.dashboard.services.collections.create>[2]) =>
      e2e.dashboard.services.collections.create(ctx, e2e.owner.project.id, def);
    await create({
      name: 'authors',
      mode: 'schema',
      fields: [
        { name: 'name', type: 'String' },
        { name: 'email', type: 'String' },
      ],
    });
    await create({
      name: 'books',
      mode: 'schema',
      fields: [
        { name: 'title', type: 'String', required: true },
        { name: 'author', type: 'Ref', ref: 'authors', required: true },
        { name: 'pages', type: 'Number' },
      ],
    });
    const secret = e2e.publicApp.client.with({ 'x-api-key': e2e.owner.secretKey });
    ada = (await secret.post('/api/data/authors', { name: 'Ada Lovelace', email: 'ada@example.test' })).body
      .data._id;
    const made = await secret.post('/api/data/books', { title: 'Notes', author: ada });
    expect(made.status, made.text).to.equal(201);
    book = made.body.data._id;
    base = `${e2e.origin}${e2e.projectPath}/data`;
  });
  shootFailures('form-polish', () => e2e);
  after(() => e2e?.close());

  it('shows a picked Ref by its display field, as the grid does, with the id on hover', async () => {
    await page.goto(`${base}/books/new`);
    await page.getByRole('button', { name: 'author (required): Choose a authors document' }).click();
    await page.getByRole('button', { name: `Ada Lovelace · ${ada}` }).click();
    const trigger = page.getByRole('button', { name: 'author (required): Ada Lovelace', exact: true });
    await trigger.waitFor();
    expect(await trigger.textContent()).to.equal('Ada Lovelace');
    expect(await trigger.getAttribute('title')).to.equal(ada);

    // A stored document's form reads the same.
    await page.goto(`${base}/books/${book}`);
    await page.getByRole('heading', { name: `Document ${book}` }).waitFor();
    const stored = page.locator('#doc-author');
    await expectText(stored, 'Ada Lovelace');
    expect(await stored.getAttribute('title')).to.equal(ada);
    await e2e.checkPage('form-ref-label');
  });

  it('marks required fields, ties each problem to its input and focuses the first one', async () => {
    await page.goto(`${base}/books/new`);
    const title = page.getByLabel(/^title/);
    await title.waitFor();
    expect(await title.getAttribute('aria-required')).to.equal('true');
    expect(await page.getByLabel(/^pages/).getAttribute('aria-required')).to.equal(null);

    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByText('Required.').first().waitFor();
    expect(await focusedId(page), 'the first problem has the focus').to.equal('doc-title');
    expect(await title.getAttribute('aria-invalid')).to.equal('true');
    expect(await description(title)).to.equal('Required.');
    const author = page.locator('#doc-author');
    expect(await author.getAttribute('aria-invalid')).to.equal('true');
    expect(await description(author)).to.equal('Required.');
    await e2e.checkPage('form-problems');

    // Once the title is given, the focus goes to the next problem, the Ref.
    await title.fill('Sketches');
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.waitForFunction(() => document.activeElement?.id === 'doc-author');
    expect(await description(title)).to.equal('');
    expect(await title.getAttribute('aria-invalid')).to.equal(null);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });

  it('marks the required inputs of the other forms for screen readers', async () => {
    const pages: [string, string][] = [
      ['/', 'Project name'],
      [`${e2e.projectPath}/collections/new`, 'Collection name'],
      ['/account', 'Current password'],
      ['/account', 'New password'],
      ['/account', 'Your password'],
    ];
    for (const [path, label] of pages) {
      await page.goto(`${e2e.origin}${path}`);
      const input = page.getByLabel(label, { exact: true });
      await input.waitFor();
      expect(await input.evaluate((el) => (el as HTMLInputElement).required), `${label} on ${path}`).to.equal(
        true,
      );
    }
  });

  for (const width of [1280, 390]) {
    it(`shows the Reads choice whole, its meaning under it, at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 844 });
      try {
        await page.goto(`${e2e.origin}${e2e.projectPath}/collections/books`);
        await page.getByLabel(/^Enabled: end users write only their own documents/).check();
        const reads = page.getByLabel('Reads');
        for (const [mode, meaning] of [
          ['private', 'Only the owner reads.'],
          ['public-read', 'Anyone with the publishable key reads.'],
        ] as const) {
          await reads.selectOption(mode);
          expect(await description(reads)).to.equal(meaning);
          await page.getByText(meaning).waitFor();
          // The chosen option's text, in the select's font, fits inside it beside the arrow.
          const fit = await reads.evaluate((el) => {
            const select = el as HTMLSelectElement;
            const style = getComputedStyle(select);
            const canvas = document.createElement('canvas').getContext('2d')!;
            canvas.font = style.font;
            const text = canvas.measureText(select.selectedOptions[0]!.text).width;
            const inner = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            const box = select.getBoundingClientRect();
            return { text, inner, right: box.right, viewport: window.innerWidth };
          });
          expect(fit.text + 20, `${mode}: ${JSON.stringify(fit)}`).to.be.at.most(fit.inner);
          expect(fit.right).to.be.at.most(fit.viewport);
        }
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.equal(width);
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    });
  }

  it('fills in the invited address when the invitation link leads to log-in or sign-up', async () => {
    const invited = `invited-${Date.now()}@example.test`;
    const inbox = mailbox(invited);
    const dash = e2e.dashboard.client.with({ cookie: e2e.owner.cookie });
    const sent = await dash.post(`/api/projects/${e2e.owner.project.id}/invitations`, { email: invited });
    expect(sent.status, sent.text).to.equal(202);
    const text = (await inbox.next()).raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const link = /https?:\/\/\S*\/invitations\/accept\?token=[\w-]+&email=\S+/.exec(text)?.[0];
    expect(link, 'the mail links the invitation with the address').to.be.a('string');

    const theirs = await e2e.browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const their = await theirs.newPage();
      await their.goto(link!);
      await their.waitForURL(/\/login\?next=/);
      const email = their.getByLabel('Email');
      await email.waitFor();
      expect(await email.inputValue()).to.equal(invited);
      expect(await email.getAttribute('required')).to.equal('');
      await their.getByRole('link', { name: 'Create an account' }).click();
      await their.getByRole('heading', { name: 'Create your account' }).waitFor();
      expect(await their.getByLabel('Email').inputValue()).to.equal(invited);
      const password = their.getByLabel('Password');
      expect(await password.getAttribute('required')).to.equal('');
      expect(await description(password)).to.equal('8 to 128 characters.');
      // A problem replaces the hint in what the input is described by, and gets the focus.
      await their.getByRole('button', { name: 'Sign up' }).click();
      await their.locator('#f-password-err').waitFor();
      expect(await their.evaluate(() => document.activeElement?.id)).to.equal('f-password');
      expect(await description(password)).to.equal(await their.locator('#f-password-err').textContent());
    } finally {
      await theirs.close();
    }
  });
});

async function expectText(locator: Locator, text: string): Promise<void> {
  await locator
    .page()
    .waitForFunction(([el, want]) => el?.textContent === want, [
      await locator.elementHandle(),
      text,
    ] as const);
}
