// What a backup holds, over HTTP: the end users (and their password hashes) only when asked, one
// rule for the schedule (an admin opts in) and a backup on request. A scheduled backup without the
// opt-in has no `data/users.jsonl` and no hash in any part; with it, it has both. The setting is
// read and set by admins only (members get 404 as on the other backup operations).
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApps } from '../helpers/app.js';
import {
  createDeveloper,
  createOperator,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';

describe('backups: the schedule holds the end users only when an admin opts in', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  const schedulePath = () => `/api/projects/${fx.project.id}/backup-schedule`;
  const day = (n: number) => new Date(Date.UTC(2026, 6, n, 3));

  /** Every line of every part of the newest backup of a trigger, and the names of its parts. */
  async function newestScheduled(trigger = 'schedule') {
    const list = (await dash.get(`/api/projects/${fx.project.id}/backups`)).body.data.backups;
    const job = list.find((b: { trigger: string }) => b.trigger === trigger);
    expect(job, `a ${trigger} backup`).to.not.equal(undefined);
    expect(job.state, job.error).to.equal('done');
    const url = new URL(`/api/projects/${fx.project.id}/backups/${job.id}/archive`, apps.dashboard.url);
    const archive = await fetch(url, { headers: { cookie: fx.cookie } });
    expect(archive.status).to.equal(200);
    const dir = mkdtempSync(path.join(tmpdir(), 'backup-test-'));
    writeFileSync(path.join(dir, 'b.tar.gz'), Buffer.from(await archive.arrayBuffer()));
    const names = execFileSync('tar', ['-tzf', 'b.tar.gz'], { cwd: dir, encoding: 'utf8' })
      .trim()
      .split('\n');
    const text = execFileSync('tar', ['-xzOf', 'b.tar.gz'], { cwd: dir, encoding: 'utf8' });
    return { job, names, text };
  }

  before(async () => {
    apps = await startTestApps('backup_schedule_users');
    await createOperator(apps.dashboard.services); // the tenant below is then on the Free plan
    fx = await createProjectFixture(apps.dashboard.services, 'Nightly');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    const users = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'users',
      fields: [{ name: 'nickname', type: 'String' }],
    });
    expect(users.status, users.text).to.equal(201);
    const signup = await apps.public.client
      .with({ 'x-api-key': fx.publishableKey })
      .post('/api/userAuth/signup', { email: 'ann@example.com', password: 'correct horse battery' });
    expect(signup.status, signup.text).to.equal(201);
  });
  after(() => apps?.close());

  it('by default: a scheduled backup has no end users and no password hash', async () => {
    const read = await dash.get(schedulePath());
    expect(read.status, read.text).to.equal(200);
    expect(read.body.data.schedule).to.deep.equal({
      every: 'day',
      kept: 3,
      includeUsers: false,
      updatedAt: null,
    });

    const runner = backupRunner(apps.dashboard.deps, apps.dashboard.services);
    expect(await runner.schedule(day(1))).to.equal(1);
    await runner.drain();
    const { job, names, text } = await newestScheduled();
    expect(job.includeUsers).to.equal(false);
    expect(names).not.to.include('data/users.jsonl');
    expect(text).not.to.include('$argon2');
    expect(text).not.to.include('ann@example.com');
  });

  it('once an admin opts in: the next scheduled backup has them, with the warning said', async () => {
    const set = await dash.put(schedulePath(), { includeUsers: true });
    expect(set.status, set.text).to.equal(200);
    expect(set.body.data.schedule).to.include({ includeUsers: true, every: 'day', kept: 3 });
    expect(set.body.data.schedule.updatedAt).to.be.a('string');
    expect(set.body.message).to.match(/password hashes/);
    expect((await dash.get(schedulePath())).body.data.schedule.includeUsers).to.equal(true);

    const runner = backupRunner(apps.dashboard.deps, apps.dashboard.services);
    expect(await runner.schedule(day(2))).to.equal(1);
    await runner.drain();
    const { job, names, text } = await newestScheduled();
    expect(job.includeUsers).to.equal(true);
    expect(names).to.include('data/users.jsonl');
    expect(text).to.include('$argon2');

    // Opted out again: the one after leaves them out.
    expect(
      (await dash.put(schedulePath(), { includeUsers: false })).body.data.schedule.includeUsers,
    ).to.equal(false);
    expect(await runner.schedule(day(3))).to.equal(1);
    await runner.drain();
    expect((await newestScheduled()).names).not.to.include('data/users.jsonl');
  });

  it('the same rule for a backup on request: left out unless asked', async () => {
    const runner = backupRunner(apps.dashboard.deps, apps.dashboard.services);
    const plain = await dash.post(`/api/projects/${fx.project.id}/backups`, {});
    expect(plain.status, plain.text).to.equal(202);
    expect(plain.body.data.backup.includeUsers).to.equal(false);
    await runner.drain();
    const left = await newestScheduled('manual');
    expect(left.names).not.to.include('data/users.jsonl');
    expect(left.text).not.to.include('$argon2');
    const asked = await dash.post(`/api/projects/${fx.project.id}/backups`, { includeUsers: true });
    expect(asked.body.data.backup.includeUsers).to.equal(true);
    await runner.drain();
    const held = await newestScheduled('manual');
    expect(held.names).to.include('data/users.jsonl');
    expect(held.text).to.include('$argon2');
  });

  it('is for the project’s admins: a body without the choice or a malformed id is 400, no session 401, another developer 404', async () => {
    const bad = await dash.put(schedulePath(), {});
    expect(bad.status).to.equal(400);
    expect(bad.body.message).to.match(/includeUsers/);
    expect((await apps.dashboard.client.get(schedulePath())).status).to.equal(401);
    expect((await apps.dashboard.client.put(schedulePath(), { includeUsers: true })).status).to.equal(401);
    // A project id that is not one: 400 before anything is looked up.
    const malformed = await dash.get('/api/projects/not-an-id/backup-schedule');
    expect(malformed.status).to.equal(400);
    const stranger = await createDeveloper(apps.dashboard.services);
    const other = apps.dashboard.client.with({ cookie: stranger.cookie });
    expect((await other.get(schedulePath())).status).to.equal(404);
    expect((await other.put(schedulePath(), { includeUsers: true })).status).to.equal(404);
    expect((await dash.get(schedulePath())).body.data.schedule.includeUsers).to.equal(false);
  });
});
