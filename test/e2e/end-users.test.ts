// The end users page in a real browser: the states a person meets (no users collection, no users
// yet, nothing matching a search), then each action on a user from its menu: disable and enable,
// sign out everywhere, edit a protected field (and see a taken unique value under its field),
// delete with the documents they own after the app's dialog.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

describe('web dashboard: end users', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  const users: Record<string, { id: string; accessToken: string }> = {};

  const publicCall = async (method: string, route: string, body?: unknown, token?: string) => {
    const res = await fetch(e2e.publicApp.url + route, {
      method,
      headers: {
        'content-type': 'application/json',
        'x-api-key': e2e.owner.publishableKey,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).to.be.below(300);
    return (await res.json()) as { data: Record<string, unknown> };
  };
  const dashboardCall = async (method: string, route: string, body?: unknown) => {
    const res = await e2e.context.request.fetch(`${e2e.origin}/api${e2e.projectPath}${route}`, {
      method,
      data: body,
      headers: { origin: e2e.origin },
    });
    expect(res.status(), await res.text()).to.be.below(300);
    return res.json() as Promise<{ data: Record<string, unknown> }>;
  };
  const row = (email: string) =>
    page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: email }) });
  const act = async (email: string, item: string) => {
    await page.getByRole('button', { name: `Actions for ${email}` }).click();
    await page.getByRole('menuitem', { name: item }).click();
  };

  before(async () => {
    e2e = await startDashboardE2E('web_end_users');
    page = e2e.page;
  });
  shootFailures('end-users', () => e2e);
  after(() => e2e?.close());

  it('says when the project has no users collection, then that it has no users yet', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/users`);
    await page.getByText('This project has no users collection yet.').waitFor();
    await dashboardCall('POST', '/collections', {
      name: 'users',
      mode: 'schema',
      fields: [
        { name: 'name', type: 'String' },
        { name: 'username', type: 'String', unique: true },
        { name: 'role', type: 'String', default: 'user', protected: true },
      ],
    });
    await dashboardCall('POST', '/collections', {
      name: 'notes',
      fields: [
        { name: 'text', type: 'String' },
        { name: 'userId', type: 'String' },
      ],
      rls: { enabled: true, mode: 'public-read', ownerField: 'userId' },
    });
    await page.reload();
    await page.getByText('No end users yet.').waitFor();
    await e2e.checkPage('end-users-empty');
  });

  it('lists the users, and tells "nothing matches" apart from "no users"', async () => {
    for (const [name, username] of [
      ['ada', 'ada'],
      ['bob', 'bobby'],
    ] as const) {
      const done = await publicCall('POST', '/api/userAuth/signup', {
        email: `${name}@example.test`,
        password: 'correct horse battery staple',
        name: name.toUpperCase(),
        username,
      });
      users[name] = {
        id: (done.data.user as { _id: string })._id,
        accessToken: done.data.accessToken as string,
      };
    }
    await page.reload();
    await row('ada@example.test').waitFor();
    const emails = await page.getByRole('rowheader').allTextContents();
    expect(emails.sort()).to.deep.equal(['ada@example.test', 'bob@example.test']);
    expect(await row('ada@example.test').getByRole('cell').allTextContents()).to.include.members([
      'ADA',
      'No',
      'Active',
    ]);
    await page.getByText('2 end users').waitFor();
    await e2e.checkPage('end-users');

    await page.getByLabel('Email or name contains').fill('zed');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No end users match.').waitFor();
    expect(await page.getByText('No end users yet').count()).to.equal(0);
    await page.getByRole('button', { name: 'Clear the search' }).click();
    await row('bob@example.test').waitFor();
    await page.getByLabel('Email or name contains').fill('ada');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 end user match').waitFor();
    expect(await page.getByRole('rowheader').allTextContents()).to.deep.equal(['ada@example.test']);
    // The search is in the address: a reload keeps it.
    expect(new URL(page.url()).search).to.equal('?search=ada');
    await page.reload();
    await page.getByText('1 end user match').waitFor();
    expect(await page.getByLabel('Email or name contains').inputValue()).to.equal('ada');
  });

  it('shows the latest search’s answer even when an earlier one arrives late', async () => {
    // The answer for "ada" is held back until after the one for "bob" came.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/users\?.*search=ada/, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.getByLabel('Email or name contains').fill('ada');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByLabel('Email or name contains').fill('bob');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('rowheader', { name: 'bob@example.test' }).waitFor();
      release();
      await page.waitForTimeout(500);
      expect(await page.getByRole('rowheader').allTextContents()).to.deep.equal(['bob@example.test']);
      expect(await page.getByLabel('Email or name contains').inputValue()).to.equal('bob');
    } finally {
      release();
      await page.unroute(/\/users\?.*search=ada/);
    }
    await page.getByLabel('Email or name contains').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('rowheader', { name: 'ada@example.test' }).waitFor();
  });

  it('disables and enables a user, and filters by state', async () => {
    await act('ada@example.test', 'Disable');
    await page.getByRole('status').filter({ hasText: 'Disabled ada@example.test' }).waitFor();
    await row('ada@example.test').getByRole('cell', { name: 'Disabled' }).waitFor();
    await page.getByLabel('Email or name contains').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByLabel('State').selectOption('disabled');
    await page.getByText('1 end user match').waitFor();
    expect(await page.getByRole('rowheader').allTextContents()).to.deep.equal(['ada@example.test']);
    await act('ada@example.test', 'Enable');
    await page.getByRole('status').filter({ hasText: 'Enabled ada@example.test.' }).waitFor();
    await page.getByText('No end users match.').waitFor();
    await page.getByLabel('State').selectOption('all');
    await row('bob@example.test').waitFor();
  });

  it('signs a user out everywhere', async () => {
    await publicCall('POST', '/api/userAuth/login', {
      email: 'bob@example.test',
      password: 'correct horse battery staple',
    });
    await act('bob@example.test', 'Sign out everywhere');
    await page
      .getByRole('status')
      .filter({ hasText: 'Signed bob@example.test out everywhere (2 sessions ended).' })
      .waitFor();
  });

  it('edits a protected field, with a taken unique value named under its field', async () => {
    await act('ada@example.test', 'Edit…');
    const dialog = page.getByRole('dialog', { name: 'Edit ada@example.test' });
    await dialog.getByLabel('role (protected)').waitFor();
    const { axeViolations } = await import('../helpers/dashboard-e2e.js');
    expect(await axeViolations(page)).to.deep.equal([]);
    await dialog.getByLabel('role (protected)').fill('editor');
    await dialog.getByLabel('username').fill('bobby');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const taken = dialog.locator('#user-field-username ~ .field-error');
    await taken.waitFor();
    expect(await taken.textContent()).to.match(/username/);
    await dialog.getByLabel('username').fill('ada');
    expect(await taken.count(), 'the message clears as the field changes').to.equal(0);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved ada@example.test.' }).waitFor();
    const stored = await dashboardCall('GET', `/users/${users.ada!.id}`);
    expect(stored.data).to.include({ role: 'editor', username: 'ada' });
  });

  it('marks users fields protected or private in the collection editor', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/collections/users`);
    await page.getByRole('heading', { name: 'Collection “users”' }).waitFor();
    await page
      .getByRole('group', { name: 'Field username' })
      .getByRole('checkbox', { name: 'Private' })
      .check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Collection saved.' }).waitFor();
    await e2e.checkPage('collection-editor-users');
    const def = await e2e.dashboard.services.repos.collections.findByName(e2e.owner.project.id, 'users');
    const byName = Object.fromEntries(def!.fields.map((f) => [f.name, f]));
    expect(byName.username).to.include({ private: true });
    expect(byName.role).to.include({ protected: true });
    // Email and password have neither flag to offer.
    const email = page.getByRole('group', { name: 'Field email' });
    await email.waitFor();
    expect(await email.getByRole('checkbox', { name: 'Protected' }).count()).to.equal(0);
  });

  it('shows the plan’s collection limit before it bites', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/collections`);
    await page
      .getByTestId('collection-limit')
      .getByText('2 of 10 collections of this project’s plan.')
      .waitFor();
  });

  it('names a bad collection name in words before sending', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/collections/new`);
    await page.getByLabel('Collection name').fill('1 bad name');
    await page.locator('#fe-fields-0-name').fill('title');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page
      .locator('.field-error')
      .getByText('Start with a letter; letters, digits, - and _ only (at most 64).')
      .waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'Check the fields' }).count()).to.equal(0);
    await e2e.checkPage('collection-editor-new');
  });

  it('deletes a user with the documents they own, after the app’s dialog', async () => {
    // Disabling ended Ada's sessions: a new one.
    const login = await publicCall('POST', '/api/userAuth/login', {
      email: 'ada@example.test',
      password: 'correct horse battery staple',
    });
    await publicCall('POST', '/api/data/notes', { text: 'mine' }, login.data.accessToken as string);
    await page.goto(`${e2e.origin}${e2e.projectPath}/users`);
    await act('ada@example.test', 'Delete…');
    const dialog = page.getByRole('alertdialog', { name: 'Delete ada@example.test?' });
    await dialog.getByLabel(/Also erase the documents/).check();
    await dialog.getByRole('button', { name: 'Delete end user' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Deleted ada@example.test with 1 document and 0 files.' })
      .waitFor();
    await page.getByText('1 end user').waitFor();
    expect(await page.getByRole('rowheader').allTextContents()).to.deep.equal(['bob@example.test']);
    const notes = await fetch(`${e2e.publicApp.url}/api/data/notes`, {
      headers: { 'x-api-key': e2e.owner.secretKey },
    });
    expect(((await notes.json()) as { data: unknown[] }).data).to.deep.equal([]);
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
