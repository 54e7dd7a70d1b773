// Every page a developer meets in the first minutes, in a real browser, with no axe violation
// of any impact (moderate ones such as landmark-unique, heading-order and page-has-heading-one
// included) and exactly one h1: each project section, a collection's editor, data, document and
// indexes pages, the account page and the log-in and sign-up pages.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { contextFor } from '../helpers/fixtures.js';
import { USER_BASE_FIELDS } from '../helpers/user-auth.js';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { allAxeViolations } from './first-minutes-shared.js';

describe('first minutes: every page under axe, every impact', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let docId: string;

  before(async () => {
    e2e = await startDashboardE2E('first_minutes_axe');
    page = e2e.page;
    const ctx = contextFor({ developer: e2e.owner.developer });
    const { collections } = e2e.dashboard.services;
    await collections.create(ctx, e2e.owner.project.id, {
      name: 'users',
      mode: 'schema',
      fields: USER_BASE_FIELDS,
    });
    await collections.create(ctx, e2e.owner.project.id, {
      name: 'posts',
      mode: 'schema',
      fields: [
        { name: 'title', type: 'String', required: true },
        { name: 'author', type: 'Ref', ref: 'users' },
      ],
    });
    const made = await e2e.publicApp.client
      .with({ 'x-api-key': e2e.owner.secretKey })
      .post('/api/data/posts', { title: 'Hello' });
    docId = made.body.data._id;
  });
  shootFailures('first-minutes-axe', () => e2e);
  after(() => e2e?.close());

  it('11. has one h1 and no axe violation on every page', async () => {
    const p = e2e.projectPath;
    const pages = [
      p,
      `${p}/collections`,
      `${p}/collections/new`,
      `${p}/collections/posts`,
      `${p}/collections/posts/indexes`,
      `${p}/data/posts`,
      `${p}/data/posts/new`,
      `${p}/data/posts/${docId}`,
      `${p}/users`,
      `${p}/files`,
      `${p}/logs`,
      `${p}/webhooks`,
      `${p}/functions`,
      `${p}/mail`,
      `${p}/storage`,
      `${p}/database`,
      `${p}/backups`,
      `${p}/ai`,
      `${p}/members`,
      `${p}/keys`,
      `${p}/settings`,
      `${p}/api`,
      '/projects',
      '/account',
    ];
    const problems: string[] = [];
    for (const path of pages) {
      await page.goto(`${e2e.origin}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      // Let the page's reads settle (lists, the definition) before it is judged.
      await page.waitForLoadState('networkidle');
      const h1 = await page.getByRole('heading', { level: 1 }).count();
      if (h1 !== 1) problems.push(`${path}: ${h1} h1`);
      for (const v of await allAxeViolations(page)) problems.push(`${path}: ${v}`);
    }
    // Signed out: the log-in and sign-up pages.
    const visitor = await e2e.browser.newContext();
    const their = await visitor.newPage();
    try {
      for (const path of ['/login', '/signup']) {
        await their.goto(`${e2e.origin}${path}`);
        await their.getByRole('heading', { level: 1 }).waitFor();
        for (const v of await allAxeViolations(their)) problems.push(`${path}: ${v}`);
      }
    } finally {
      await visitor.close();
    }
    expect(problems).to.deep.equal([]);
  });
});
