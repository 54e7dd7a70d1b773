// The warning of the month's function invocations in a real browser: a project whose operator
// limit is 10 runs a callable 8 times, and the Overview and the Functions page both say that
// 80 % are used; at 10 of 10 they say the runs are used up. axe and 390 px on each.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('web dashboard: the function quota warning', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let receiver: http.Server;

  const calls = async (n: number) => {
    const key = e2e.publicApp.client.with({ 'x-api-key': e2e.owner.secretKey });
    for (let i = 0; i < n; i++) expect((await key.post('/api/functions/ping', {})).status).to.equal(200);
  };

  before(async () => {
    e2e = await startDashboardE2E('web_function_quota', { ALLOW_PRIVATE_HOSTS: 'true' });
    page = e2e.page;
    // The endpoint answers every call with an empty body (signatures are not checked here).
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ping`;
    const projectId = e2e.owner.project.id;
    // As the operator's limit override stores it (the API of that is covered by the mocha suites).
    await e2e.dashboard.services.repos.projects.setLimits(projectId, { functionInvocationsPerMonth: 10 });
    const made = await e2e.publicApp.client
      .with({ 'x-api-key': e2e.owner.secretKey })
      .post('/api/functions', {
        name: 'ping',
        trigger: { type: 'callable', access: 'secret' },
        runtime: { type: 'http', url },
      });
    expect(made.status, made.text).to.equal(201);
  });
  shootFailures('function-quota', () => e2e);
  after(async () => {
    await e2e?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('shows 80 % on the Overview and the Functions page, then used up', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}`);
    await page.getByRole('heading', { name: 'Against your plan limits' }).waitFor();
    expect(await page.getByTestId('function-quota-warning').count()).to.equal(0);
    await calls(8);
    await page.reload();
    const warning = page.getByTestId('function-quota-warning');
    await warning.getByRole('heading', { name: "80 % of this month's function runs used" }).waitFor();
    await warning.getByText(/\(8 of 10\)/).waitFor();
    await e2e.checkPage('function-quota-overview');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${e2e.origin}${e2e.projectPath}/functions`);
    await page.getByRole('heading', { name: 'Functions', exact: true }).waitFor();
    await warning.getByRole('heading', { name: "80 % of this month's function runs used" }).waitFor();
    await calls(2);
    await page.reload();
    await page
      .getByRole('alert')
      .getByRole('heading', { name: "This month's function runs are used up" })
      .waitFor();
    await page.getByText(/used up \(10 of 10\)/).waitFor();
    await e2e.checkPage('function-quota-functions');
  });
});
