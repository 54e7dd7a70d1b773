// Erasing an end user takes their data out of webhook payloads: the user's own `user.created`
// delivery, and (when their documents are erased) the deliveries of the documents they owned,
// queued or already in the delivery log, keep their ids but lose the document (`redacted: true`).
// Another user's deliveries stay whole.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startTestWorker } from '../helpers/worker.js';

describe('webhooks: erasing an end user redacts their payloads', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let receiver: Receiver;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;

  before(async () => {
    apps = await startTestApps('wh_erasure', {
      ALLOW_PRIVATE_HOSTS: 'true',
      USER_AUTH_SIGNUPS_PER_HOUR: '1000',
    });
    receiver = await startReceiver();
    worker = await startTestWorker(apps.public.deps.config.platformDb, { ALLOW_PRIVATE_HOSTS: 'true' });
  });
  after(async () => {
    await worker?.stop();
    await receiver?.close();
    await apps?.close();
  });

  it('redacts the user and their erased documents from queued and logged deliveries', async () => {
    const fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
    const services = apps.public.services;
    await createCollectionFixture(services, fx.project.id, {
      name: 'users',
      mode: 'schema',
      fields: [
        { name: 'email', type: 'String', required: true, unique: true },
        { name: 'password', type: 'String', required: true },
        { name: 'name', type: 'String' },
      ],
    });
    await createCollectionFixture(services, fx.project.id, {
      name: 'notes',
      fields: [
        { name: 'text', type: 'String' },
        { name: 'userId', type: 'String' },
      ],
      rls: { enabled: true, mode: 'public-read', ownerField: 'userId' },
    });
    const dash = apps.dashboard.client.with({ cookie: fx.cookie });
    const hooks = `/api/projects/${fx.project.id}/webhooks`;
    const created = await dash.post(hooks, {
      url: receiver.url('/erasure'),
      events: ['user.created', 'document.created'],
    });
    expect(created.status).to.equal(201);
    const hook = created.body.data.webhook.id as string;

    const pk = apps.public.client.with({ 'x-api-key': fx.publishableKey });
    const signup = async (name: string) => {
      const res = await pk.post('/api/userAuth/signup', {
        email: `${name}@example.test`,
        password: 'correct horse battery',
        name,
      });
      expect(res.status, res.text).to.equal(201);
      return {
        id: res.body.data.user._id as string,
        as: pk.with({ authorization: `Bearer ${res.body.data.accessToken}` }),
      };
    };
    const gone = await signup('gone');
    const kept = await signup('kept');
    const goneNotes: string[] = [];
    for (const text of ['secret diary', 'home address']) {
      const res = await gone.as.post('/api/data/notes', { text });
      expect(res.status).to.equal(201);
      goneNotes.push(res.body.data._id);
    }
    const keptNote = (await kept.as.post('/api/data/notes', { text: 'stays' })).body.data._id as string;

    const log = async () =>
      (await dash.get(`${hooks}/${hook}/deliveries`, { query: { limit: 100 } })).body.data
        .deliveries as any[];
    const deadline = Date.now() + 10_000;
    while (
      Date.now() < deadline &&
      !((await log()).length === 5 && (await log()).every((d) => d.status === 'succeeded'))
    )
      await new Promise((r) => setTimeout(r, 50));
    expect((await log()).map((d) => d.status)).to.deep.equal(Array(5).fill('succeeded'));

    // One more of the user's notes stays queued: the worker is stopped first.
    await worker.stop();
    const queuedNote = (await gone.as.post('/api/data/notes', { text: 'phone number' })).body.data
      ._id as string;
    goneNotes.push(queuedNote);
    expect((await log()).find((d) => d.payload.documentId === queuedNote).status).to.equal('pending');

    const secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    const erased = await secret.delete(`/api/users/${gone.id}`, undefined, { query: { documents: true } });
    expect(erased.status, erased.text).to.equal(200);

    const byDocument = new Map((await log()).map((d) => [d.payload.documentId as string, d]));
    for (const id of [gone.id, ...goneNotes]) {
      const delivery = byDocument.get(id)!;
      expect(delivery.payload, `delivery of ${id}`).to.deep.include({
        documentId: id,
        document: null,
        redacted: true,
      });
    }
    expect(byDocument.get(queuedNote)!.status).to.equal('pending');
    expect(byDocument.get(kept.id)!.payload.document).to.include({ name: 'kept' });
    expect(byDocument.get(keptNote)!.payload.document).to.include({ text: 'stays' });
    const stored = JSON.stringify(
      await apps.public.deps.db.platform.collection('webhook_deliveries').find({}).toArray(),
    );
    for (const text of ['secret diary', 'home address', 'phone number', 'gone@example.test'])
      expect(stored, 'nothing of the erased user is left in the outbox').not.to.include(text);
    worker = await startTestWorker(apps.public.deps.config.platformDb, { ALLOW_PRIVATE_HOSTS: 'true' });
  });
});
