// The web dashboard in a real browser (Debian's Chromium through playwright-core) against both
// real HTTP roles on the test stack: a developer signs up (confirming by mail), creates a project
// and copies its keys, creates a collection with a schema (and sees the API's message next to a
// bad field), adds, edits, trashes and restores a document, uploads and deletes a file, invites a
// member (who accepts from the mailed link, after logging in or after signing up from it), reads the project's API reference and downloads its
// document, and sets and removes an AI provider key.
// Screenshots of the main pages go to screenshots/ (git-ignored).
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestApp, suiteDatabase, type TestApp } from '../helpers/app.js';
import { createDeveloper, createOperator } from '../helpers/fixtures.js';
import { invitationTokenOf, mailbox } from '../helpers/mail.js';
import { signupTokenOf } from '../helpers/signup.js';
import { repoPath } from '../../src/lib/paths.js';

const SHOTS = repoPath('screenshots');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

describe('web dashboard in a real browser', function () {
  this.timeout(120_000);
  let dir: string;
  let publicApp: TestApp;
  let dashboard: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let projectUrl: string;
  const email = `e2e-${Date.now()}@example.test`;
  const consoleErrors: string[] = [];

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  /** Follows an in-app link by its accessible name, as a keyboard or mouse user would. */
  const go = async (name: string) => {
    await page.getByRole('link', { name, exact: true }).first().click();
  };

  /** The invitee's own browser on the mailed invitation link, which sends them to log in first. */
  const openInvitation = async (inbox: { next(): Promise<{ raw: string }> }) => {
    const link = `${origin}/invitations/accept?token=${invitationTokenOf(await inbox.next())}`;
    const theirs = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const their = await theirs.newPage();
    await their.goto(link);
    await their.waitForURL(/\/login\?next=/);
    return { link, theirs, their };
  };

  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    dir = await mkdtemp(path.join(tmpdir(), 'baas-e2e-'));
    const [publicPort, dashboardPort] = [await freePort(), await freePort()];
    origin = `http://127.0.0.1:${dashboardPort}`;
    const shared = {
      PLATFORM_DB: suiteDatabase('web_e2e'),
      S3_BUCKET: '',
      STORAGE_DIR: dir,
      PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
      DASHBOARD_URL: origin,
    };
    publicApp = await startTestApp('public', 'web_e2e', shared, publicPort);
    dashboard = await startTestApp('dashboard', 'web_e2e', shared, dashboardPort);
    // The installation's operator has no plan limits: the walk signs up as the next developer.
    await createOperator(dashboard.services);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await context.newPage();
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    page.on('dialog', (d) => void d.accept(d.type() === 'prompt' ? 'Shop' : undefined));
  });
  afterEach(async function () {
    // What the page showed when a step failed, to see why.
    if (this.currentTest?.state === 'failed' && page) await shot('failed-step').catch(() => undefined);
  });
  after(async () => {
    await browser?.close();
    await dashboard?.close();
    await publicApp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the app at / with a strict content security policy and cache headers', async () => {
    const res = await fetch(`${origin}/projects/anything`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/text\/html/);
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).to.include("script-src 'self'").and.include("frame-ancestors 'none'");
    const html = await res.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(origin + asset);
    expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect((await fetch(`${origin}/assets/missing.js`)).status).to.equal(404);
    const api404 = await fetch(`${origin}/api/nothing`);
    expect(api404.status).to.equal(404);
    expect((await api404.json()).code).to.equal('ROUTE_NOT_FOUND');
  });

  it('signs up, and keyboard users can skip to the content', async () => {
    await page.goto(origin);
    await page.waitForURL(/\/login$/);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Skip to content');
    await go('Create an account');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Sign up' }).click();
    // The API's rule, checked before sending, in words next to the field it concerns.
    await page.locator('.field-error').filter({ hasText: 'At least 8 characters.' }).waitFor();
    await shot('signup');
    const inbox = mailbox(email);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign up' }).click();
    // No session yet: the account exists once the mailed link is opened and the password typed again.
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    await page.getByText(`We sent a message to ${email}`).waitFor();
    await shot('signup-check-mail');
    await page.goto(`${origin}/signup/confirm?token=${signupTokenOf(await inbox.next())}`);
    await page.getByRole('heading', { name: 'Finish creating your account' }).waitFor();
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByText('Wrong password: type the password you chose when you signed up').waitFor();
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
  });

  it('creates a project and copies its keys, shown once', async () => {
    await page.getByLabel('Project name').fill('Shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText('shown only this once').waitFor();
    const secret = await page.getByTestId('key-secret').inputValue();
    expect(secret).to.match(/^sk_live_/);
    expect(await page.getByTestId('key-publishable').inputValue()).to.match(/^pk_live_/);
    await page.getByRole('button', { name: 'Copy secret key: copy to clipboard' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(secret);
    await shot('project-created-keys');
    await go('Open the project');
    await page.getByText('Against your plan limits').waitFor();
    projectUrl = new URL(page.url()).pathname;
    await shot('project-overview-usage');
  });

  it('creates a collection with a schema; the API’s message shows next to the field', async () => {
    await go('Collections');
    await go('New collection');
    await page.getByLabel('Collection name').fill('products');
    await page.locator('#fe-fields-0-name').fill('$title');
    await page.getByRole('button', { name: 'Create collection' }).click();
    const fieldMessage = page.locator('#fe-fields-0-name ~ .field-error');
    await fieldMessage.waitFor();
    expect(await fieldMessage.textContent()).to.match(/\$title/);
    await page.locator('#fe-fields-0-name').fill('title');
    await page.getByRole('checkbox', { name: 'Required' }).first().check();
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.locator('#fe-fields-1-name').fill('price');
    await page.locator('#fe-fields-1-type').selectOption('Number');
    await page.locator('#fe-fields-1-default').fill('1');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.locator('#fe-fields-2-name').fill('meta');
    await page.locator('#fe-fields-2-type').selectOption('Object');
    await page.getByRole('button', { name: 'Add sub-field' }).click();
    await page.locator('#fe-fields-2-fields-0-name').fill('color');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.getByRole('heading', { name: 'Collection “products”' }).waitFor();
    await shot('collection-schema-editor');
    const def = await dashboard.services.repos.collections.findByName(projectUrl.split('/')[2]!, 'products');
    expect(def?.mode).to.equal('schema');
    expect(def?.fields.map((f) => f.name)).to.deep.equal(['title', 'price', 'meta']);
    expect(def?.fields[1]).to.include({ type: 'Number', default: 1 });
    expect(def?.fields[2]!.fields![0]).to.include({ name: 'color', type: 'String' });
  });

  it('adds, edits, trashes and restores a document', async () => {
    await page.goto(`${origin}${projectUrl}/data/products`);
    await go('Add document');
    await page.getByLabel(/^title/).fill('Lamp');
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByRole('heading', { name: /^Document [0-9a-f]{24}$/ }).waitFor();
    await page.getByLabel(/^price/).fill('15');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await shot('document-form');
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await page.getByText('This document is in the trash').waitFor();

    await go('← products');
    await page.getByText('No documents yet.').waitFor();
    await page.getByRole('button', { name: 'Show trash' }).click();
    await page.getByRole('gridcell', { name: 'Lamp', exact: true }).waitFor();
    await shot('data-browser-trash');
    await page.getByRole('checkbox', { name: /^Select [0-9a-f]{24}$/ }).check();
    await page.getByRole('button', { name: 'Restore selected' }).click();
    await page.getByRole('status').filter({ hasText: '1 restored.' }).waitFor();
    await page.getByRole('button', { name: 'Back to documents' }).click();
    await page.getByRole('gridcell', { name: 'Lamp', exact: true }).waitFor();
    await page.getByRole('gridcell', { name: '15', exact: true }).waitFor();
    await shot('data-browser');
  });

  it('uploads a file through the presigned flow and deletes it', async () => {
    await go('Files');
    await page.getByLabel('File (at most 10 MB)').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('hello from the dashboard'),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Uploaded notes.txt.').waitFor();
    await page.getByRole('rowheader', { name: 'notes.txt' }).waitFor();
    await shot('files');
    await page.getByRole('button', { name: 'Delete notes.txt' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete notes.txt?' })
      .getByRole('button', { name: 'Delete file' })
      .click();
    await page.getByText('Deleted notes.txt.').waitFor();
    await page.getByText('No files yet.').waitFor();
  });

  it('invites a member, who accepts from the mailed link after logging in; revokes another', async () => {
    const invitee = await createDeveloper(dashboard.services);
    const inbox = mailbox(invitee.developer.email);
    await go('Members');
    await page.getByLabel('Email').fill(invitee.developer.email);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText(`Invitation sent to ${invitee.developer.email}`).waitFor();
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    const row = pending.getByRole('row', { name: new RegExp(invitee.developer.email) });
    await row.getByText('invited, pending').waitFor();
    expect(await page.getByRole('table', { name: 'Members' }).textContent()).not.to.include(
      invitee.developer.email,
    );
    await shot('members');

    // The invitee opens the mail's link in their own browser, logs in, and accepts.
    const { link, theirs, their } = await openInvitation(inbox);
    try {
      await their.getByLabel('Email').fill(invitee.developer.email);
      await their.getByLabel('Password').fill(invitee.password);
      await their.getByRole('button', { name: 'Log in' }).click();
      await their.getByRole('heading', { name: 'Project invitation' }).waitFor();
      await their.getByRole('button', { name: 'Accept the invitation' }).click();
      await their.getByText('You are now a member of Shop').waitFor();
      await their.screenshot({ path: path.join(SHOTS, 'invitation-accepted.png'), fullPage: true });
      await their.getByRole('link', { name: 'Open Shop' }).click();
      await their.getByText('Against your plan limits').waitFor();
      // The same link a second time: refused in words.
      await their.goto(link);
      await their.getByRole('button', { name: 'Accept the invitation' }).click();
      await their.getByText('This invitation link is not valid').waitFor();
    } finally {
      await theirs.close();
    }

    await page.reload();
    await page
      .getByRole('table', { name: 'Members' })
      .getByRole('rowheader', { name: new RegExp(invitee.developer.email) })
      .waitFor();
    await page.getByText('No pending invitations.').waitFor();

    const ghost = `ghost-${Date.now()}@example.test`;
    await page.getByLabel('Email').fill(ghost);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('button', { name: `Revoke the invitation of ${ghost}` }).click();
    await page
      .getByRole('alertdialog', { name: `Revoke the invitation of ${ghost}?` })
      .getByRole('button', { name: 'Revoke invitation' })
      .click();
    await page.getByText(`The invitation of ${ghost} was revoked.`).waitFor();
    await page.getByText('No pending invitations.').waitFor();
  });

  it('invites an address without an account: the sign-up from the link ends on the invitation', async () => {
    const newcomer = `newcomer-${Date.now()}@example.test`;
    const inbox = mailbox(newcomer);
    await go('Members');
    await page.getByLabel('Email').fill(newcomer);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText(`Invitation sent to ${newcomer}`).waitFor();
    const { theirs, their } = await openInvitation(inbox);
    try {
      await their.getByRole('link', { name: 'Create an account' }).click();
      await their.waitForURL(/\/signup\?next=/);
      await their.getByLabel('Email').fill(newcomer);
      await their.getByLabel('Password').fill('newcomer password 1');
      await their.getByRole('button', { name: 'Sign up' }).click();
      await their.getByRole('heading', { name: 'Check your mail' }).waitFor();
      await their.getByText('Its link then brings you back to the page you asked for.').waitFor();
      // The sign-up mail's link opens in a new tab of the same browser, whose address has no `next`.
      const confirm = await theirs.newPage();
      await confirm.goto(`${origin}/signup/confirm?token=${signupTokenOf(await inbox.next())}`);
      await confirm.getByLabel('Password').fill('newcomer password 1');
      await confirm.getByRole('button', { name: 'Create my account' }).click();
      await confirm.getByRole('heading', { name: 'Project invitation' }).waitFor();
      expect(new URL(confirm.url()).pathname).to.equal('/invitations/accept');
      await confirm.getByText(`You are logged in as ${newcomer}`).waitFor();
      await confirm.getByRole('button', { name: 'Accept the invitation' }).click();
      await confirm.getByText('You are now a member of Shop').waitFor();
      // Kept once: the next log-in in this browser goes to the home page as usual.
      expect(await confirm.evaluate(() => localStorage.getItem('baas:next-after-signup'))).to.equal(null);
    } finally {
      await theirs.close();
    }
    await page.reload();
    await page
      .getByRole('table', { name: 'Members' })
      .getByRole('rowheader', { name: new RegExp(newcomer) })
      .waitFor();
  });

  it('shows the project’s API reference with the collection’s fields, and downloads its document', async () => {
    await go('API reference');
    const products = page.getByRole('region', { name: 'products' });
    const fields = products.getByRole('table', { name: 'Fields of products' });
    await fields.waitFor();
    const rows = await fields
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
    // Field, type, required, default, unique, ref: as the editor defined them.
    expect(rows).to.deep.equal([
      ['title', 'string', 'Yes', '—', 'No', '—'],
      ['price', 'number or null', 'No', '1', 'No', '—'],
      ['meta', 'object or null', 'No', '—', 'No', '—'],
      ['meta.color', 'string or null', 'No', '—', 'No', '—'],
    ]);
    // Without RLS only the secret key writes, and the 403 says why.
    const create = products.locator('tr', {
      has: page.locator('th', { hasText: /^POST \/api\/data\/products$/ }),
    });
    expect(await create.locator('td').nth(1).textContent()).to.equal('secretKey');
    expect(await create.locator('td').nth(2).textContent()).to.include('PUBLISHABLE_KEY_READ_ONLY');
    expect(await page.getByTestId('client-command').inputValue()).to.equal(
      `npx openapi-typescript "${publicApp.url}/api/openapi.json?key=<publishable key>" -o ./api.d.ts`,
    );
    await shot('api-reference');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download openapi.json' }).click(),
    ]);
    expect(download.suggestedFilename()).to.equal('Shop-openapi.json');
    const bytes = await readFile((await download.path())!);
    const served = await context.request.get(`${origin}/api${projectUrl}/openapi.json`);
    expect(bytes.equals(await served.body())).to.equal(true);
    const doc = JSON.parse(bytes.toString('utf8')) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).to.match(/^3\.1/);
    expect(doc.paths).to.have.property('/api/data/products');
  });

  it('says an own AI key needs Pro on Free, then sets and removes a personal and a project key on Pro', async () => {
    const key = `gsk_${'e2e0'.repeat(8)}`;
    await go('Settings');
    const projectCard = page.getByRole('form', { name: 'Project AI key' });
    await projectCard.getByLabel('AI provider key').fill(key);
    await projectCard.getByRole('button', { name: 'Save AI key' }).click();
    await projectCard.getByRole('alert').filter({ hasText: 'needs the Pro plan' }).waitFor();

    await go(email);
    const form = page.getByRole('form', { name: 'Personal AI key' });
    await form.getByText('No key is set.').waitFor();
    await form.getByLabel('AI provider key').fill(key);
    await form.getByRole('button', { name: 'Save AI key' }).click();
    await form.getByRole('alert').filter({ hasText: 'needs the Pro plan' }).waitFor();
    await shot('account-ai-key-free');

    const developer = (await dashboard.services.repos.developers.findByEmail(email))!;
    await dashboard.services.repos.developers.setPlan(developer.id, 'pro');
    await page.reload();
    await form.getByLabel('AI provider key').fill('not-a-key');
    await form.getByRole('button', { name: 'Save AI key' }).click();
    // The API's format message, under the field.
    expect(await form.locator('.field-error').textContent()).to.include('gsk_');
    await form.getByLabel('AI provider key').fill(key);
    await form.getByRole('button', { name: 'Save AI key' }).click();
    await form.getByText('A key is set.').waitFor();
    expect((await dashboard.services.repos.developers.findByEmail(email))!.hasAiProviderKey).to.equal(true);
    expect(await page.content()).not.to.include(key);
    await shot('account-ai-key');
    await form.getByRole('button', { name: 'Remove AI key' }).click();
    await form.getByText('No key is set.').waitFor();
    expect((await dashboard.services.repos.developers.findByEmail(email))!.hasAiProviderKey).to.equal(false);

    // The project's own key, on the now Pro owner's project.
    await page.goto(`${origin}${projectUrl}/settings`);
    await projectCard.getByLabel('AI provider key').fill(key);
    await projectCard.getByRole('button', { name: 'Save AI key' }).click();
    await projectCard.getByText('A key is set.').waitFor();
    const projectId = projectUrl.split('/')[2]!;
    expect((await dashboard.services.repos.projects.findById(projectId))!.hasAiProviderKey).to.equal(true);
    await shot('settings-project-ai-key');
    await projectCard.getByRole('button', { name: 'Remove AI key' }).click();
    await projectCard.getByText('No key is set.').waitFor();
  });

  it('fits a phone’s width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${origin}${projectUrl}`);
    await page.getByText('Against your plan limits').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).to.be.at.most(0);
    await shot('phone-overview');
    await page.goto(`${origin}${projectUrl}/data/products`);
    await page.getByRole('gridcell', { name: 'Lamp', exact: true }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).to.be.at.most(
      0,
    );
    await shot('phone-data-browser');
    await page.goto(`${origin}${projectUrl}/api`);
    await page.getByRole('table', { name: 'Fields of products' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).to.be.at.most(
      0,
    );
    await shot('phone-api-reference');
    expect(consoleErrors.filter((e) => /Content Security Policy/.test(e))).to.deep.equal([]);
  });
});
