// The Functions pages in a real browser: add a JavaScript beforeCreate hook with the CodeMirror
// editor (checked before sending), see it listed, test-run it on a sample event, edit the code (a
// new version with a new SHA-256), roll back to version 1 through the dialog, see the invocation a
// real write through the public API logged, remove a secret, and an HTTP hook whose signing
// secret is shown once and whose breaker opens after failures. Every screen: axe and 390 px. A
// member reads it all (the code in a read-only editor) with none of the controls, which an admin
// keeps.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  axeViolations,
  shootFailures,
  sidewaysOverflow,
  startDashboardE2E,
  type DashboardE2E,
} from '../helpers/dashboard-e2e.js';
import { createCollectionFixture, createDeveloper } from '../helpers/fixtures.js';
import { repoPath } from '../../src/lib/paths.js';

const code = (tag: string) => `export default async (event, ctx) => {
  ctx.log('stamping', event.documents.length);
  return { documents: event.documents.map((d) => ({ ...d, title: d.title + ' (${tag})' })) };
};`;

describe('web dashboard: functions', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let receiver: http.Server;
  let receiverUrl: string;
  let v1Sha = '';

  /** Replaces the editor's text (insertText: one input, no auto-closed brackets). */
  async function typeCode(scope: Page | ReturnType<Page['locator']>, text: string) {
    const editor = scope.getByRole('textbox', { name: 'Code' });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    if (text) await page.keyboard.insertText(text);
    else await page.keyboard.press('Delete');
  }
  const secretApi = () => e2e.publicApp.client.with({ 'x-api-key': e2e.owner.secretKey });

  before(async () => {
    e2e = await startDashboardE2E('web_functions', {
      ALLOW_PRIVATE_HOSTS: 'true',
      HOOK_BREAKER_FAILURES: '2',
      HOOK_BREAKER_COOLDOWN_MS: '600000',
    });
    page = e2e.page;
    await createCollectionFixture(e2e.dashboard.services, e2e.owner.project.id, { name: 'posts' });
    // An HTTP hook's endpoint that is down: every call fails, so the breaker opens.
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end('down'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/guard`;
  });
  shootFailures('functions', () => e2e);
  after(async () => {
    receiver?.close();
    await e2e?.close();
  });

  it('shows no functions yet, and checks a new one before sending it', async () => {
    const res = await page.goto(`${e2e.origin}${e2e.projectPath}/functions`);
    // The editor works under the dashboard's CSP as it is: own scripts and styles only.
    const csp = res!.headers()['content-security-policy']!;
    expect(csp).to.include("script-src 'self'").and.include("style-src 'self'").and.not.include('unsafe');
    await page.getByText('No functions yet.').waitFor();
    await page.getByRole('textbox', { name: 'Code' }).waitFor();
    await e2e.checkPage('functions-empty');
    await page.getByLabel('Name').fill('9lives');
    await typeCode(page, '');
    await page.getByRole('button', { name: 'Add function' }).click();
    const errors = page.locator('.field-error');
    await errors.first().waitFor();
    expect(await errors.allTextContents()).to.deep.equal([
      'Start with a letter; letters, digits, - and _ only (at most 64).',
      'Required: an ES module with a default export.',
    ]);
    await page.getByLabel('HTTP: your own endpoint, called signed').check();
    await page.getByRole('button', { name: 'Add function' }).click();
    await page.getByText('Required: the https:// address to call.').waitFor();
    await page.getByLabel('JavaScript, hosted here').check();
  });

  it('creates a JavaScript beforeCreate hook with the editor and lists it', async () => {
    await page.getByLabel('Name').fill('stampTitle');
    expect(await page.getByLabel('Trigger').inputValue()).to.equal('beforeCreate');
    expect(await page.getByLabel('Collection').inputValue()).to.equal('posts');
    await typeCode(page, code('v1'));
    // CodeMirror's own styles applied (a constructed sheet in its shadow root): no <style> refused.
    const direction = await page.locator('.cm-editor').evaluate((el) => getComputedStyle(el).flexDirection);
    expect(direction).to.equal('column');
    await page.getByRole('button', { name: 'Add function' }).click();
    await page.getByRole('heading', { name: 'Function stampTitle' }).waitFor();
    await page.getByText('v1 of 1').waitFor();
    v1Sha = (await page.getByTestId('active-sha').getAttribute('title'))!;
    expect(v1Sha).to.match(/^[0-9a-f]{64}$/);

    await page.getByRole('link', { name: '← Functions' }).click();
    const row = page.getByRole('row').filter({ hasText: 'stampTitle' });
    expect(await row.getByRole('cell').allTextContents()).to.deep.equal([
      'beforeCreate on posts',
      'JavaScript',
      'Enabled',
      'v1',
      '—',
    ]);
    await e2e.checkPage('functions');
    await page.getByRole('link', { name: 'stampTitle' }).click();
    await page.getByRole('heading', { name: 'Function stampTitle' }).waitFor();
  });

  it('test-runs it on a sample event and shows the answer and the log, writing nothing', async () => {
    await page.getByText('A test writes nothing').waitFor();
    await page.getByRole('button', { name: 'Run test' }).click();
    const result = page.getByRole('status', { name: 'Test result' });
    await result.waitFor();
    expect(await page.getByTestId('test-status').textContent(), (await result.textContent())!).to.equal('ok');
    expect(JSON.parse((await page.getByTestId('test-value').textContent())!)).to.deep.equal({
      documents: [{ title: 'Hello (v1)' }],
    });
    expect(await result.getByRole('list', { name: 'Log lines' }).textContent()).to.include('stamping 1');
    await e2e.checkPage('function-test');
    const fnId = page.url().split('/').pop()!;
    const log = await e2e.context.request.get(
      `${e2e.origin}/api${e2e.projectPath}/functions/${fnId}/invocations`,
    );
    expect((await log.json()).data.invocations, 'a test run is not logged').to.deep.equal([]);
    expect((await secretApi().get('/api/data/posts')).body.data).to.have.length(0);

    await page.getByLabel('Sample event (JSON)').fill('{ "documents": [');
    await page.getByRole('button', { name: 'Run test' }).click();
    await page.getByRole('alert').filter({ hasText: 'The sample event is not JSON' }).waitFor();
  });

  it('edits the code: a new version with a new SHA-256, and adds a secret', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: 'Edit' });
    await typeCode(edit, code('v2'));
    await edit.getByRole('button', { name: 'Add a secret' }).click();
    await edit.getByLabel('Secret name').fill('API_TOKEN');
    await edit.getByLabel('Value').fill('s3cr3t-value');
    await edit.getByRole('button', { name: 'Save function' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 2, now active.' }).waitFor();
    await page.getByText('v2 of 2').waitFor();
    const v2Sha = await page.getByTestId('active-sha').getAttribute('title');
    expect(v2Sha)
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.equal(v1Sha);
    const versions = page.getByRole('table', { name: 'Versions' });
    await versions.getByRole('row').nth(2).waitFor();
    const rows = versions.getByRole('row');
    expect(await rows.nth(1).textContent())
      .to.include('v2')
      .and.include(v2Sha!.slice(0, 12))
      .and.include('Active');
    expect(await rows.nth(2).textContent())
      .to.include('v1')
      .and.include(v1Sha.slice(0, 12));
    const secrets = page.getByRole('region', { name: 'Secrets' });
    await secrets.getByText('API_TOKEN').waitFor();
    expect(await page.content(), 'a secret value never comes back').not.to.include('s3cr3t-value');
    // The code typed over the old one (a selection replaced) is what runs now.
    await page.getByLabel('Sample event (JSON)').fill('{ "documents": [{ "title": "Hello" }] }');
    await page.getByRole('button', { name: 'Run test' }).click();
    await page.getByTestId('test-value').filter({ hasText: 'Hello (v2)' }).waitFor();
    await e2e.checkPage('function-versions');
  });

  it('rolls back to version 1 through the dialog', async () => {
    await page.getByRole('button', { name: 'Activate version 1' }).click();
    await page
      .getByRole('alertdialog', { name: 'Activate version 1?' })
      .getByRole('button', { name: 'Activate v1' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Version 1 is active again.' }).waitFor();
    await page.getByText('v1 of 2').waitFor();
    expect(await page.getByTestId('active-sha').getAttribute('title')).to.equal(v1Sha);
    await page.getByLabel('Sample event (JSON)').fill('{ "documents": [{ "title": "Hello" }] }');
    await page.getByRole('button', { name: 'Run test' }).click();
    await page.getByTestId('test-value').filter({ hasText: 'Hello (v1)' }).waitFor();
  });

  it('logs the invocation of a real write through the public API, newest first', async () => {
    const made = await secretApi().post('/api/data/posts', { title: 'Real' });
    expect(made.status).to.equal(201);
    expect(made.body.data.title).to.equal('Real (v1)');
    // The public process writes its invocation log in batches: written before the page reads it.
    await e2e.publicApp.services.functions.invoker.flushLog();
    await page.reload();
    const log = page.getByRole('table', { name: 'Invocations' });
    const row = log.getByRole('row').nth(1);
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    // Trigger, request, outcome, duration, version.
    expect(cells[0]).to.equal('beforeCreate');
    expect(cells[1])
      .to.include('POST /api/data/posts')
      .and.include('create · posts')
      .and.include('by secret key');
    expect(cells.slice(2, 5)).to.deep.equal(['OK', cells[3]!, 'v1']);
    expect(cells[3]).to.match(/^\d+ ms$/);
    await row.getByText('1 log line').click();
    expect(await row.getByRole('list', { name: 'Log lines' }).textContent()).to.include('stamping 1');
    await e2e.checkPage('function-invocations');
  });

  it('removes a secret after the dialog', async () => {
    await page.getByRole('button', { name: 'Remove API_TOKEN' }).click();
    await page
      .getByRole('alertdialog', { name: 'Remove the secret API_TOKEN?' })
      .getByRole('button', { name: 'Remove secret' })
      .click();
    await page.getByText('No secrets.').waitFor();
    const res = await e2e.context.request.get(`${e2e.origin}/api${e2e.projectPath}/functions`);
    expect((await res.json()).data.functions[0].env).to.deep.equal([]);
  });

  it('shows an HTTP hook’s signing secret once, then its breaker opening', async () => {
    await page.getByRole('link', { name: '← Functions' }).click();
    await page.getByLabel('Name').fill('guardDelete');
    await page.getByLabel('Trigger').selectOption('beforeDelete');
    await page.getByLabel('HTTP: your own endpoint, called signed').check();
    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByRole('button', { name: 'Add function' }).click();
    await page.getByText('shown only this once').waitFor();
    expect(await page.getByTestId('function-secret').inputValue()).to.match(/^whsec_/);
    await e2e.checkPage('function-http-secret');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('heading', { name: 'Function guardDelete' }).waitFor();
    expect(await page.getByTestId('function-secret').count(), 'never shown again').to.equal(0);
    expect(await page.getByTestId('breaker').textContent()).to.equal('Closed: calls go through');

    // Two failed calls (the endpoint answers 500): the policy is closed, so the deletes are refused.
    const post = (await secretApi().get('/api/data/posts')).body.data[0];
    for (let i = 0; i < 2; i++) {
      const refused = await secretApi().delete(`/api/data/posts/${post._id}`);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    }
    await page.reload();
    await page
      .getByTestId('breaker')
      .filter({
        hasText:
          /^Open: calls fail at once until \d{1,2}:\d{2}:\d{2}(\s?[AP]M)?, then one trial call goes through \(after 2 failures in a row\)$/,
      })
      .waitFor();
    await page
      .getByRole('table', { name: 'Invocations' })
      .getByText('Error', { exact: true })
      .first()
      .waitFor();
    await e2e.checkPage('function-http');
    await page.getByRole('link', { name: '← Functions' }).click();
    const row = page.getByRole('row').filter({ hasText: 'guardDelete' });
    expect(await row.getByRole('cell').last().textContent()).to.match(/^Open/);
  });

  /** The controls only an admin can use, by their accessible names. */
  const ADMIN_BUTTONS = [
    'Add function',
    'Enable',
    'Disable',
    'Edit',
    'Delete',
    'Run test',
    'Activate version 1',
    'Activate version 2',
    'Remove HOOK_TOKEN',
    'Add a secret',
    'Save function',
  ];
  const MEMBER_WORDS =
    'Only admins can add, change, test or delete functions. As a member, you can read them and their logs.';

  it('shows a member every function read-only, with none of the controls, at desktop and phone width', async () => {
    const { services } = e2e.dashboard;
    const project = e2e.owner.project;
    const guard = (await services.functions.manage.list(project)).find((f) => f.name === 'guardDelete')!;
    await services.functions.manage.update(project, guard.id, { env: { HOOK_TOKEN: 'hook-token-value' } });
    const member = await createDeveloper(services);
    await services.members.add(project, member.developer.email, 'member');
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const refused: string[] = [];
    try {
      const [name, value] = member.cookie.split('=') as [string, string];
      await context.addCookies([{ name, value, url: e2e.origin }]);
      const m = await context.newPage();
      m.on('console', (msg) => {
        if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
          errors.push(msg.text());
      });
      m.on('pageerror', (err) => errors.push(err.message));
      m.on('response', (res) => {
        if (res.status() >= 400) refused.push(`${res.status()} ${res.request().method()} ${res.url()}`);
      });
      const main = m.getByRole('main');
      const noControls = async (where: string) => {
        for (const button of ADMIN_BUTTONS)
          expect(
            await main.getByRole('button', { name: button, exact: true }).count(),
            `${button} on ${where}`,
          ).to.equal(0);
        // Nothing to press at all: every control of these pages changes something.
        expect(await main.getByRole('button').allTextContents(), where).to.deep.equal([]);
        expect(await main.getByTestId('member-note').textContent()).to.equal(MEMBER_WORDS);
        expect(await axeViolations(m), `axe on ${where}`).to.deep.equal([]);
        expect(await sidewaysOverflow(m), `sideways scroll on ${where}`).to.be.at.most(0);
      };
      const shot = (name: string) =>
        m.screenshot({ path: path.join(repoPath('screenshots'), `${name}.png`), fullPage: true });

      for (const width of [1280, 390]) {
        const phone = width === 390 ? 'phone-' : '';
        await m.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await m.goto(`${e2e.origin}${e2e.projectPath}/functions`);
        await main.getByText(MEMBER_WORDS).waitFor();
        // Reached from the member's menu too (behind the toggle at phone width).
        const menu = m.getByRole('navigation', { name: 'Project' });
        if (phone) await menu.getByRole('button', { name: 'Menu: Functions' }).click();
        await menu.getByRole('link', { name: 'Functions' }).waitFor();
        if (phone) await menu.getByRole('button', { name: 'Close menu' }).click();
        const row = main.getByRole('row').filter({ hasText: 'stampTitle' });
        expect(await row.getByRole('cell').allTextContents()).to.deep.equal([
          'beforeCreate on posts',
          'JavaScript',
          'Enabled',
          'v1 of 2',
          '—',
        ]);
        expect(await main.getByRole('row').filter({ hasText: 'guardDelete' }).textContent()).to.include(
          'Open',
        );
        expect(await main.getByRole('heading', { name: 'Add a function' }).count()).to.equal(0);
        expect(await main.getByRole('textbox').count(), 'no form').to.equal(0);
        await noControls(`the list at ${width} px`);
        await shot(`${phone}functions-member`);

        // A hosted function: its facts, its code in a read-only editor, versions and log.
        await main.getByRole('link', { name: 'stampTitle' }).click();
        await main.getByRole('heading', { name: 'Function stampTitle' }).waitFor();
        await main.getByText('v1 of 2').waitFor();
        const codeBox = main.getByRole('region', { name: 'Code' }).getByRole('textbox', { name: 'Code' });
        await codeBox.waitFor();
        expect(await codeBox.getAttribute('aria-readonly')).to.equal('true');
        const shown = await codeBox.innerText();
        expect(shown).to.include("ctx.log('stamping'").and.include('(v1)');
        await codeBox.click();
        await m.keyboard.press('ControlOrMeta+End');
        await m.keyboard.type('x');
        await m.keyboard.press('Backspace');
        expect(await codeBox.innerText(), 'typing changes nothing').to.equal(shown);
        const versions = main.getByRole('table', { name: 'Versions' });
        await versions.getByRole('row').nth(2).waitFor();
        expect(await versions.getByRole('row').nth(1).getByRole('cell').last().textContent()).to.equal('—');
        expect(await versions.getByRole('row').nth(2).getByRole('cell').last().textContent()).to.equal(
          'Active',
        );
        await main.getByRole('table', { name: 'Invocations' }).getByRole('cell', { name: 'OK' }).waitFor();
        expect(await main.getByRole('heading', { name: 'Test' }).count(), 'no Test panel').to.equal(0);
        await main
          .getByRole('region', { name: 'Secrets' })
          .getByText('No secrets; the code would read')
          .waitFor();
        await noControls(`a hosted function at ${width} px`);
        await shot(`${phone}function-member`);

        // An HTTP hook: its breaker, and its secret's name with no Remove.
        await main.getByRole('link', { name: '← Functions' }).click();
        await main.getByRole('link', { name: 'guardDelete' }).click();
        await main.getByRole('heading', { name: 'Function guardDelete' }).waitFor();
        expect(await main.getByTestId('breaker').textContent()).to.match(/^Open: calls fail at once/);
        const secrets = main.getByRole('region', { name: 'Secrets' });
        expect(await secrets.getByRole('listitem').textContent()).to.equal('HOOK_TOKENvalue hidden');
        expect(await main.getByRole('region', { name: 'Code' }).count(), 'an HTTP hook has no code').to.equal(
          0,
        );
        await main
          .getByRole('table', { name: 'Invocations' })
          .getByRole('cell', { name: 'Error' })
          .first()
          .waitFor();
        await noControls(`an HTTP hook at ${width} px`);
        await shot(`${phone}function-http-member`);
      }
      // The pages only read: no call the API refused (a member's write would be a 403), no script error.
      expect(refused).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('still shows an admin the controls, at desktop and phone width', async () => {
    const main = page.getByRole('main');
    try {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${e2e.origin}${e2e.projectPath}/functions`);
        await main.getByRole('button', { name: 'Add function' }).waitFor();
        expect(await main.getByTestId('member-note').count()).to.equal(0);
        const newCode = main.getByRole('textbox', { name: 'Code' });
        await newCode.waitFor();
        expect(await newCode.getAttribute('aria-readonly'), 'the form’s editor is editable').to.equal(null);
        await main.getByRole('link', { name: 'stampTitle' }).click();
        await main.getByRole('heading', { name: 'Function stampTitle' }).waitFor();
        for (const button of ['Disable', 'Edit', 'Delete', 'Run test', 'Activate version 2'])
          expect(await main.getByRole('button', { name: button, exact: true }).isVisible(), button).to.equal(
            true,
          );
        await main.getByRole('link', { name: '← Functions' }).click();
        await main.getByRole('link', { name: 'guardDelete' }).click();
        await main.getByRole('button', { name: 'Remove HOOK_TOKEN' }).waitFor();
        expect(await main.getByRole('button', { name: 'Run test' }).isVisible()).to.equal(true);
        expect(await main.getByTestId('member-note').count()).to.equal(0);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await main.getByRole('link', { name: '← Functions' }).click();
    await main.getByLabel('Name').waitFor();
  });

  it('puts a refused cron under its field, and shows a callable’s thrown error and a timeout', async () => {
    await page.getByLabel('Name').fill('nightly');
    await page.getByLabel('Trigger').selectOption('schedule');
    await page.getByLabel('JavaScript, hosted here').check();
    await page.getByLabel('Schedule (cron, UTC)').fill('* * * * *');
    await page.getByRole('button', { name: 'Add function' }).click();
    const cronError = page.locator('#fn-new-cron-err');
    await cronError.waitFor();
    expect(await cronError.textContent()).to.match(/hour|interval|3600|minute/i);

    await page.getByLabel('Name').fill('explode');
    await page.getByLabel('Trigger').selectOption('callable');
    await page.getByLabel('Who may call it').selectOption('secret');
    await page.getByLabel('Calls a minute (optional)').fill('0');
    await page.getByRole('button', { name: 'Add function' }).click();
    await page.locator('#fn-new-rate-err').waitFor();
    await page.getByLabel('Calls a minute (optional)').fill('30');
    await typeCode(page, "export default async (event) => {\n  throw new Error('no ' + event.name);\n};");
    await page.getByRole('button', { name: 'Add function' }).click();
    await page.getByRole('heading', { name: 'Function explode' }).waitFor();
    expect(await page.locator('dl.facts').textContent())
      .to.include('callable (secret access)')
      .and.include('at most 30');
    await page.getByRole('button', { name: 'Run test' }).click();
    await page.getByTestId('test-status').filter({ hasText: 'error' }).waitFor();
    const result = page.getByRole('status', { name: 'Test result' });
    expect(await result.locator('pre').textContent())
      .to.include('no explode')
      .and.match(/:2/);

    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: 'Edit' });
    await typeCode(edit, 'export default async () => { for (;;) {} };');
    await edit.getByRole('button', { name: 'Save function' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved as version 2' }).waitFor();
    await page.getByRole('button', { name: 'Run test' }).click();
    await page.getByTestId('test-status').filter({ hasText: 'timeout' }).waitFor({ timeout: 20_000 });
    await e2e.checkPage('function-timeout');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete this function?' })
      .getByRole('button', { name: 'Delete function' })
      .click();
    await page.getByRole('heading', { name: 'Functions' }).waitFor();
  });

  it('deletes a function after the dialog, with no console error on the way', async () => {
    await page.getByRole('link', { name: 'guardDelete' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete this function?' })
      .getByRole('button', { name: 'Delete function' })
      .click();
    await page.getByRole('heading', { name: 'Functions' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'stampTitle' }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'guardDelete' }).count()).to.equal(0);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
