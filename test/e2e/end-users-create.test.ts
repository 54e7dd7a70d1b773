// A project without a users collection: one click on the End users page makes the one end-user
// sign-in needs (email, password, name: the server's own definition, the page sends no fields),
// after which a first sign-up with the publishable key succeeds; a member is told to ask an admin.
// A project made on the Projects page has it from the start unless its box is unticked.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { createDeveloper, createProjectFixture } from '../helpers/fixtures.js';

describe('web dashboard: the users collection in one click', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;

  const signUp = (publishableKey = e2e.owner.publishableKey) =>
    fetch(`${e2e.publicApp.url}/api/userAuth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': publishableKey },
      body: JSON.stringify({ email: 'first@example.test', password: 'correct horse battery', name: 'First' }),
    });

  before(async () => {
    e2e = await startDashboardE2E('web_users_click');
    page = e2e.page;
  });
  shootFailures('end-users-create', () => e2e);
  after(() => e2e?.close());

  it('creates the users collection, and a first sign-up with the publishable key succeeds', async () => {
    const refused = await signUp();
    expect(refused.status).to.equal(400);
    expect(((await refused.json()) as { code: string }).code).to.equal('USERS_COLLECTION_MISSING');

    await page.goto(`${e2e.origin}${e2e.projectPath}/users`);
    await page.getByText('This project has no users collection yet.').waitFor();
    await e2e.checkPage('end-users-missing');
    // The page sends no fields: the server makes the collection from its own definition.
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/users-collection'));
    await page.getByRole('button', { name: 'Create the users collection' }).click();
    expect((await sent).postData() ?? '').to.equal('');
    await page.getByText('No end users yet.').waitFor();
    const def = await e2e.dashboard.services.repos.collections.findByName(e2e.owner.project.id, 'users');
    expect(def!.fields.map((f) => [f.name, f.type, Boolean(f.required), Boolean(f.unique)])).to.deep.equal([
      ['email', 'String', true, true],
      ['password', 'String', true, false],
      ['name', 'String', false, false],
    ]);

    const first = await signUp();
    expect(first.status, await first.clone().text()).to.equal(201);
    await page.reload();
    await page.getByRole('rowheader', { name: 'first@example.test' }).waitFor();
  });

  it('tells a member to ask an admin, with no button', async () => {
    const other = await createProjectFixture(e2e.dashboard.services, 'No users yet');
    const member = await createDeveloper(e2e.dashboard.services);
    await e2e.dashboard.services.repos.projects.addMember(other.project.id, member.developer.id, 'member');
    const [name, value] = member.cookie.split('=') as [string, string];
    await e2e.context.clearCookies();
    await e2e.context.addCookies([{ name, value, url: e2e.origin }]);
    await page.goto(`${e2e.origin}/projects/${other.project.id}/users`);
    await page.getByText('Only admins can create it: ask an admin of the project.').waitFor();
    expect(await page.getByRole('main').getByRole('button').count()).to.equal(0);
  });

  it('makes a new project ready for sign-in from the Projects page, unless unticked', async () => {
    await e2e.context.clearCookies();
    const [name, value] = e2e.owner.cookie.split('=') as [string, string];
    await e2e.context.addCookies([{ name, value, url: e2e.origin }]);
    await page.goto(e2e.origin);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const ready = page.getByRole('checkbox', { name: 'Ready for end-user sign-in' });
    expect(await ready.isChecked()).to.equal(true);
    await page.getByText('Adds a users collection (email, password, name)').waitFor();
    await e2e.checkPage('projects-sign-in-ready');
    await page.getByLabel('Project name').fill('Ready app');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText('shown only this once').waitFor();
    const publishable = await page.getByTestId('key-publishable').inputValue();
    await page.getByRole('link', { name: 'Open the project' }).click();
    await page.getByText('Against your plan limits').waitFor();
    await page.goto(`${new URL(page.url()).href.replace(/\/$/, '')}/users`);
    await page.getByText('No end users yet.').waitFor();
    expect(await page.getByText('This project has no users collection yet.').count()).to.equal(0);
    const first = await signUp(publishable);
    expect(first.status, await first.clone().text()).to.equal(201);
    await page.reload();
    await page.getByRole('rowheader', { name: 'first@example.test' }).waitFor();

    // The owner is at Free's two projects now: another developer makes the unticked one.
    const other = await createDeveloper(e2e.dashboard.services);
    const [otherName, otherValue] = other.cookie.split('=') as [string, string];
    await e2e.context.clearCookies();
    await e2e.context.addCookies([{ name: otherName, value: otherValue, url: e2e.origin }]);
    await page.goto(e2e.origin);
    await page.getByLabel('Project name').fill('Bare app');
    await page.getByRole('checkbox', { name: 'Ready for end-user sign-in' }).uncheck();
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText('shown only this once').waitFor();
    await page.getByRole('link', { name: 'Open the project' }).click();
    await page.getByText('Against your plan limits').waitFor();
    await page.goto(`${new URL(page.url()).href.replace(/\/$/, '')}/users`);
    await page.getByText('This project has no users collection yet.').waitFor();
  });
});
