// The mail page in a real browser: the month's count, the system templates with a preview the API
// renders from the variables typed (following them as they change) and a test sent to oneself, custom templates on Pro
// (checked before sending, created, edited with the preview following, deleted after a dialog),
// and the SMTP form with its rules in words and the API's refusal shown once.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { mailbox, subjectOf } from '../helpers/mail.js';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('web dashboard: mail', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;

  before(async () => {
    e2e = await startDashboardE2E('web_mail');
    page = e2e.page;
  });
  shootFailures('mail', () => e2e);
  after(() => e2e?.close());

  it('shows the month’s count and previews a system template with the variables typed', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/mail`);
    await page
      .getByTestId('mail-usage')
      .getByText(/^0 of \d+ mails sent in \d{4}-\d{2}/)
      .waitFor();
    await page.getByText('Your own templates need the Pro plan').waitFor();
    await page.getByText('Your own SMTP server needs the Pro plan.').waitFor();
    const options = await page.getByLabel('Template', { exact: true }).locator('option').allTextContents();
    const system = options.find((o) => o.endsWith('(system)'))!;
    await page.getByLabel('Template', { exact: true }).selectOption({ label: system });
    await page.getByText('A system template: it cannot be changed.').waitFor();
    await page.getByTestId('preview-subject').waitFor();
    const box = mailbox(e2e.owner.developer.email);
    await page.getByRole('button', { name: 'Send a test to me' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Sent to ${e2e.owner.developer.email}: 1 of` })
      .waitFor();
    expect(subjectOf(await box.next())).to.equal(await page.getByTestId('preview-subject').textContent());
    await page
      .getByTestId('mail-usage')
      .getByText(/^1 of \d+ mails sent/)
      .waitFor();
    await e2e.checkPage('mail');
  });

  it('creates a custom template on Pro, its rules checked first, with a preview that follows', async () => {
    await e2e.dashboard.services.repos.developers.setPlan(e2e.owner.developer.id, 'pro');
    await page.reload();
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByLabel('Template name').fill('Welcome Mail');
    await page.getByRole('button', { name: 'Create template' }).click();
    const errors = page.locator('.field-error');
    await errors.first().waitFor();
    expect(await errors.allTextContents()).to.deep.equal([
      'Start with a lower-case letter or digit; lower-case letters, digits, - and _ only (at most 64).',
      'Required.',
    ]);
    await page.getByLabel('Template name').fill('welcome');
    await page.getByLabel('Subject').fill('Welcome, {{name}}');
    await page.getByLabel('Text part').fill('Hello {{name}}!');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('status').filter({ hasText: 'Created the template welcome.' }).waitFor();
    await page.getByTestId('preview-subject').getByText('Welcome, Ada').waitFor();
    await page.getByLabel('Variables (JSON)').fill('{ "name": "Grace" }');
    await page.getByTestId('preview-subject').getByText('Welcome, Grace').waitFor();
    expect(await page.getByTestId('preview-text').textContent()).to.equal('Hello Grace!');
    await page.getByLabel('Variables (JSON)').fill('{ "name": ');
    await page.getByText('Enter the variables as a JSON object').waitFor();
    await page.getByLabel('Variables (JSON)').fill('{ "name": "Grace" }');

    await page.getByLabel('Subject').fill('Hi {{name}}');
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the template welcome.' }).waitFor();
    await page.getByTestId('preview-subject').getByText('Hi Grace').waitFor();
    await e2e.checkPage('mail-template');
  });

  it('deletes the custom template after the dialog', async () => {
    await page.getByRole('button', { name: 'Delete template' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete the template welcome?' })
      .getByRole('button', { name: 'Delete template' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Deleted the template welcome.' }).waitFor();
    expect(
      await page.getByLabel('Template', { exact: true }).locator('option', { hasText: 'welcome' }).count(),
    ).to.equal(0);
  });

  it('checks the SMTP form in words, and shows the API’s refusal once', async () => {
    await page.getByLabel('Host').fill('https://smtp.example.com');
    await page.getByLabel('Port').fill('');
    await page.getByRole('button', { name: 'Verify and save' }).click();
    const errors = page.locator('#smtp-heading ~ form .field-error');
    await errors.first().waitFor();
    expect(await errors.allTextContents()).to.deep.equal([
      'A host name or address, like smtp.example.com (no https://).',
      'Required.',
      'Required.',
      'Required.',
      'Required.',
    ]);
    await page.getByLabel('Host').fill('127.0.0.1');
    await page.getByLabel('Port').fill('2525');
    await page.getByLabel('Username').fill('app');
    await page.getByLabel('Password').fill('secret');
    await page.getByLabel('From address').fill('Shop <no-reply@shop.example>');
    expect(await errors.count()).to.equal(0);
    await page.getByRole('button', { name: 'Verify and save' }).click();
    // A loopback host is refused by the API (restricted hosts); its words appear once.
    const refusal = page.getByText(/restricted|not allowed|private/i);
    await refusal.first().waitFor();
    expect(await refusal.count()).to.equal(1);
    // The HTML preview inherits the dashboard's CSP: the mail's inline styles are refused there
    // (the page says so); nothing else may be logged.
    expect(e2e.consoleErrors.filter((m) => !m.includes("directive 'style-src 'self''"))).to.deep.equal([]);
  });
});
