// The storage page in a real browser: where files are kept, end-user uploads switched off and on,
// the own bucket refused on Free in words, then on Pro the bucket form's rules named before
// sending and a real bucket of the test stack's S3 server connected and let go after a dialog.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { createBucket, s3Env } from '../api/storage-shared.js';

describe('web dashboard: storage', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let bucket: Awaited<ReturnType<typeof createBucket>>;

  before(async () => {
    e2e = await startDashboardE2E('web_storage', { ALLOW_PRIVATE_HOSTS: 'true' });
    page = e2e.page;
    bucket = await createBucket('e2e-web');
  });
  shootFailures('storage', () => e2e);
  after(async () => {
    await bucket?.drop();
    await e2e?.close();
  });

  it('says where files are kept and switches end-user uploads', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/storage`);
    await page
      .getByTestId('storage-state')
      .getByText(/^In the built-in storage/)
      .waitFor();
    await page.getByText('Your own bucket needs the Pro plan.').waitFor();
    const uploads = page.getByLabel(/End users may upload files/);
    const was = await uploads.isChecked();
    await uploads.click();
    await page
      .getByRole('status')
      .filter({ hasText: was ? 'may no longer upload' : 'End users may upload' })
      .waitFor();
    expect(await uploads.isChecked()).to.equal(!was);
    await e2e.checkPage('storage');
  });

  it('names the bucket form’s problems before sending, then connects a real bucket on Pro', async () => {
    await e2e.dashboard.services.repos.developers.setPlan(e2e.owner.developer.id, 'pro');
    await page.reload();
    await page.getByLabel('Region').fill('EU Central');
    await page.getByLabel('Bucket', { exact: true }).fill('My_Bucket');
    await page.getByRole('button', { name: 'Verify and connect' }).click();
    const errors = page.locator('.field-error');
    await errors.first().waitFor();
    expect(await errors.allTextContents()).to.deep.equal([
      'Required.',
      'Lower-case letters, digits and - only, like eu-central-1.',
      '3 to 63 lower-case letters, digits, . and -, starting and ending with a letter or digit.',
      'Required.',
      'Required.',
    ]);
    await page.getByLabel('Endpoint').fill(s3Env.endpoint);
    await page.getByLabel('Region').fill(s3Env.region);
    await page.getByLabel('Bucket', { exact: true }).fill(bucket.name);
    await page.getByLabel('Access key id').fill(s3Env.accessKeyId);
    await page.getByLabel('Secret access key').fill(s3Env.secretAccessKey);
    expect(await errors.count()).to.equal(0);
    await page.getByRole('button', { name: 'Verify and connect' }).click();
    await page.getByRole('status').filter({ hasText: 'Your bucket is connected and verified' }).waitFor();
    await page.getByTestId('storage-state').getByText(`In your bucket ${bucket.name}`).waitFor();
    expect(await page.content()).not.to.include(s3Env.secretAccessKey);
    await e2e.checkPage('storage-own-bucket');
    await page.getByRole('button', { name: 'Use the built-in storage again' }).click();
    await page
      .getByRole('alertdialog', { name: 'Use the built-in storage again?' })
      .getByRole('button', { name: 'Use the built-in storage' })
      .click();
    await page
      .getByTestId('storage-state')
      .getByText(/^In the built-in storage/)
      .waitFor();
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
