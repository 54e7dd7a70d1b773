// The external database page in a real browser: the managed state with the addresses to
// allow-list, the connection string's rules checked before sending, a refused verification shown
// once, a verified connection to a real MongoDB-compatible server with its status, and the way
// back to the managed database after the app's dialog.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { testEnv } from '../helpers/env.js';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('web dashboard: external database', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  const database = `t_e2e_ext_${randomBytes(4).toString('hex')}`;

  before(async () => {
    e2e = await startDashboardE2E('web_database', {
      ALLOW_PRIVATE_HOSTS: 'true',
      DASHBOARD_EGRESS_IPS: '203.0.113.10',
      PUBLIC_EGRESS_IPS: '203.0.113.20,203.0.113.21',
    });
    page = e2e.page;
    await e2e.dashboard.services.repos.developers.setPlan(e2e.owner.developer.id, 'pro');
  });
  shootFailures('database', () => e2e);
  after(async () => {
    const client = new MongoClient(testEnv.MONGODB_URI!);
    await client
      .db(database)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    await e2e?.close();
  });

  it('shows the managed database and the addresses to allow-list', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/database`);
    await page.getByTestId('db-state').getByText('Uses the managed database.').waitFor();
    await page.getByText('Dashboard service: 203.0.113.10').waitFor();
    await page.getByText('Public API service: 203.0.113.20, 203.0.113.21').waitFor();
    await e2e.checkPage('database');
  });

  it('checks the connection string before sending, and shows a refused verification once', async () => {
    await page.getByRole('button', { name: 'Verify and connect' }).click();
    await page.locator('.field-error').getByText('Required.').waitFor();
    await page.getByLabel('Connection string').fill(`mongodb://127.0.0.1:${await closedPort()}/x`);
    expect(await page.locator('.field-error').count()).to.equal(0);
    await page.getByRole('button', { name: 'Verify and connect' }).click();
    const refusal = page.getByText('Could not connect to the provided database URI.');
    await refusal.waitFor({ timeout: 20_000 });
    expect(await refusal.count()).to.equal(1);
    await page.getByTestId('db-state').getByText('Uses the managed database.').waitFor();
  });

  it('connects a verified database and shows its status, then goes back after the dialog', async () => {
    const uri = new URL(testEnv.MONGODB_URI!);
    uri.pathname = `/${database}`;
    await page.getByLabel('Connection string').fill(uri.toString());
    await page.getByRole('button', { name: 'Verify and connect' }).click();
    await page.getByRole('status').filter({ hasText: 'Connected and verified' }).waitFor({ timeout: 20_000 });
    const state = await page.getByTestId('db-state').textContent();
    expect(state).to.include(`Uses your MongoDB at ${uri.host}, database ${database}; verified`);
    expect(await page.content()).not.to.include(uri.toString());
    await e2e.checkPage('database-connected');
    await page.getByRole('button', { name: 'Use the managed database' }).click();
    await page
      .getByRole('alertdialog', { name: 'Go back to the managed database?' })
      .getByRole('button', { name: 'Use the managed database' })
      .click();
    await page.getByRole('status').filter({ hasText: 'uses the managed database again' }).waitFor();
    await page.getByTestId('db-state').getByText('Uses the managed database.').waitFor();
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
