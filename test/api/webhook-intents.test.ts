// A crash between a document write and its webhook event: the public role runs in a child process
// that kills itself (SIGKILL) right after the document write, before the event's outbox entries
// are confirmed; the worker finds the unconfirmed intent, sees the document written, and
// delivers the event. Killed before the write instead, the intent is dropped and nothing is sent.
// An end user's sign-up (`user.created`) goes the same way, and its recovered event carries no
// password hash.
import type { ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startTestWorker } from '../helpers/worker.js';
import { USER_BASE_FIELDS } from '../helpers/user-auth.js';
import { postAndDie, startCrashingPublic } from '../helpers/crash-child.js';

type Apps = Awaited<ReturnType<typeof startTestApps>>;

describe('webhooks: a crash between the document write and its event', () => {
  let apps: Apps;
  let receiver: Receiver;
  let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  let child: ChildProcess | undefined;

  before(async () => {
    apps = await startTestApps('wh_intents', { ALLOW_PRIVATE_HOSTS: 'true' });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    await worker?.stop();
    worker = undefined;
  });
  after(async () => {
    await receiver?.close();
    await apps?.close();
  });

  async function project(path: string, event = 'document.created') {
    const fx = await createProjectFixture(apps.dashboard.services);
    await createCollectionFixture(apps.public.services, fx.project.id, { name: 'posts' });
    const dash = apps.dashboard.client.with({ cookie: fx.cookie });
    const res = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
      url: receiver.url(path),
      events: [event],
    });
    expect(res.status).to.equal(201);
    receiver.secret(path, res.body.data.secret);
    return { fx, dash, hook: res.body.data.webhook.id as string };
  }
  const startWorker = async () =>
    (worker = await startTestWorker(apps.public.deps.config.platformDb, {
      ALLOW_PRIVATE_HOSTS: 'true',
      WEBHOOK_INTENT_GRACE: '500ms',
    }));
  const outbox = (projectId: string) =>
    apps.public.deps.db.platform
      .collection('webhook_deliveries')
      .find({})
      .toArray()
      .then((rows) => rows.filter((row) => String(row.projectId) === projectId));

  it('killed after the document write: the worker still delivers the event, with the document', async () => {
    const { fx, dash, hook } = await project('/after-write');
    const started = await startCrashingPublic(apps.public.deps.config.platformDb, 'after-write');
    child = started.child;
    const died = await postAndDie(started.url, fx.secretKey, child, { title: 'written, then the crash' });
    child = undefined;
    expect(died).to.deep.equal({ answer: 'no answer', signal: 'SIGKILL' });

    const posts = apps.public.client.with({ 'x-api-key': fx.secretKey });
    const [doc] = (await posts.get('/api/data/posts')).body.data;
    expect(doc, 'the document was written').to.include({ title: 'written, then the crash' });
    const [intent] = await outbox(fx.project.id);
    expect(intent, 'an unconfirmed intent is left').to.include({ status: 'intent' });

    await startWorker();
    const [got] = await receiver.waitFor(
      () => receiver.on('/after-write').length >= 1 && receiver.on('/after-write'),
    );
    expect(got!.verified).to.equal(true);
    expect(got!.payload).to.deep.include({ event: 'document.created', documentId: doc._id });
    expect(got!.payload.document).to.include({ _id: doc._id, title: 'written, then the crash' });
    const deadline = Date.now() + 5000;
    let list: any[] = [];
    while (Date.now() < deadline) {
      list = (await dash.get(`/api/projects/${fx.project.id}/webhooks/${hook}/deliveries`)).body.data
        .deliveries;
      if (list[0]?.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(list).to.have.length(1);
    expect(list[0]).to.include({ status: 'succeeded', messageId: got!.id });
  });

  it('killed after the intent, before the document write: the intent is dropped, nothing is sent', async () => {
    const { fx } = await project('/before-write');
    const started = await startCrashingPublic(apps.public.deps.config.platformDb, 'before-write');
    child = started.child;
    const died = await postAndDie(started.url, fx.secretKey, child, { title: 'never written' });
    child = undefined;
    expect(died).to.deep.equal({ answer: 'no answer', signal: 'SIGKILL' });
    expect(await outbox(fx.project.id)).to.have.length(1);

    await startWorker();
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (await outbox(fx.project.id)).length)
      await new Promise((r) => setTimeout(r, 50));
    expect(await outbox(fx.project.id), 'the intent was dropped').to.have.length(0);
    const posts = apps.public.client.with({ 'x-api-key': fx.secretKey });
    expect((await posts.get('/api/data/posts')).body.data).to.have.length(0);
    expect(receiver.on('/before-write')).to.have.length(0);
  });

  it('killed after an end user is created: the worker delivers user.created, without the password hash or private fields', async () => {
    const { fx } = await project('/signup', 'user.created');
    await createCollectionFixture(apps.public.services, fx.project.id, {
      name: 'users',
      mode: 'schema',
      fields: [...USER_BASE_FIELDS, { name: 'phone', type: 'String', private: true }],
    });
    const started = await startCrashingPublic(apps.public.deps.config.platformDb, 'after-write');
    child = started.child;
    const body = {
      email: 'grace@example.test',
      password: 'correct horse battery',
      name: 'Grace',
      phone: '555',
    };
    const died = await postAndDie(started.url, fx.publishableKey, child, body, '/api/userAuth/signup');
    child = undefined;
    expect(died).to.deep.equal({ answer: 'no answer', signal: 'SIGKILL' });
    const users = apps.public.client.with({ 'x-api-key': fx.secretKey });
    const [user] = (await users.get('/api/users')).body.data;
    expect(user, 'the end user was created').to.include({ email: 'grace@example.test' });
    expect(await outbox(fx.project.id), 'an unconfirmed intent is left').to.have.length(1);

    await startWorker();
    const [got] = await receiver.waitFor(() => receiver.on('/signup').length >= 1 && receiver.on('/signup'));
    expect(got!.verified).to.equal(true);
    expect(got!.payload).to.deep.include({
      event: 'user.created',
      collection: 'users',
      documentId: user._id,
    });
    expect(got!.payload.document).to.include({ _id: user._id, email: 'grace@example.test', name: 'Grace' });
    expect(got!.payload.document).not.to.have.any.keys('password', 'phone', 'isDeleted', 'deletedAt');
    expect(got!.body).not.to.match(/argon2|correct horse/);
  });
});
