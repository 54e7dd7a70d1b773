// The project cache (src/services/project-cache.ts) must never serve a stale key or definition:
// a change made through one process is seen by every other process on the next request.
import { expect } from 'chai';
import { signUpByMail } from '../helpers/signup.js';
import { startTestApp, startTestApps, type TestApp } from '../helpers/app.js';
import { testEnv } from '../helpers/env.js';
import type { ApiClient } from '../helpers/client.js';
import { LOCAL_VERSION_MS } from '../../src/services/project-cache.js';

describe('project cache across processes', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let other: TestApp;
  let dash: ApiClient;
  let projectId: string;
  let keys: { publishable: string; secret: string };

  before(async function () {
    if (!testEnv.REDIS_URL) return this.skip(); // one process only without a shared cache
    apps = await startTestApps('project_cache');
    other = await startTestApp('public', 'project_cache', {
      PLATFORM_DB: apps.public.deps.config.platformDb,
    });
    const signup = await signUpByMail(apps.dashboard.client, 'cache@example.com', 'correct horse battery');
    dash = apps.dashboard.client.with({ cookie: signup.cookie });
    const created = await dash.post('/api/projects', { name: 'Cached' });
    projectId = created.body.data.project.id;
    keys = created.body.data.keys;
    const collection = await dash.post(`/api/projects/${projectId}/collections`, {
      name: 'notes',
      fields: [
        { name: 'text', type: 'String' },
        { name: 'userId', type: 'String' },
      ],
    });
    expect(collection.status).to.equal(201);
  });
  after(async () => {
    await other?.close();
    await apps?.close();
  });

  const list = (app: TestApp, key: string) =>
    app.client.get('/api/data/notes', { headers: { 'x-api-key': key } });

  it('refuses a rotated key in every process at once', async () => {
    expect((await list(apps.public, keys.secret)).status).to.equal(200);
    expect((await list(other, keys.secret)).status).to.equal(200);
    const rotated = await dash.post(`/api/projects/${projectId}/keys/secret/rotate`);
    expect((await list(other, keys.secret)).status).to.equal(401);
    expect((await list(apps.public, keys.secret)).status).to.equal(401);
    expect((await list(other, rotated.body.data.key)).status).to.equal(200);
    expect((await list(other, keys.publishable)).status).to.equal(200);
    keys.secret = rotated.body.data.key;
  });

  it('applies a changed collection definition in every process at once', async () => {
    expect((await list(other, keys.publishable)).status).to.equal(200);
    const update = await dash.put(`/api/projects/${projectId}/collections/notes`, {
      fields: [
        { name: 'text', type: 'String' },
        { name: 'userId', type: 'String' },
      ],
      rls: { enabled: true, mode: 'private', ownerField: 'userId' },
    });
    expect(update.status).to.equal(200);
    expect((await list(other, keys.publishable)).status).to.equal(401);
  });

  /** Counts the cache reads of a process while `work` runs. */
  async function cacheReads(app: TestApp, work: () => Promise<void>): Promise<number> {
    const cache = app.deps.cache as { get: TestApp['deps']['cache']['get'] };
    const get = cache.get;
    let reads = 0;
    cache.get = (key) => {
      reads++;
      return get(key);
    };
    try {
      await work();
    } finally {
      cache.get = get;
    }
    return reads;
  }

  it('learns a change from the pushed version, without a cache read per request', async () => {
    expect((await list(other, keys.secret)).status).to.equal(200);
    const reads = await cacheReads(other, async () => {
      for (let i = 0; i < 5; i++) expect((await list(other, keys.secret)).status).to.equal(200);
      const update = await dash.put(`/api/projects/${projectId}/collections/notes`, {
        fields: [
          { name: 'text', type: 'String' },
          { name: 'userId', type: 'String' },
        ],
        rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
      });
      expect(update.status).to.equal(200);
      // Seen at once, from the message alone: the private RLS mode of the last test is gone.
      expect((await list(other, keys.publishable)).status).to.equal(200);
    });
    expect(reads).to.equal(0);
  });

  it('heals a missed message by reading the version again after a short time', async () => {
    expect((await list(other, keys.publishable)).status).to.equal(200);
    // A change whose message is lost: the definition and the version move, nothing is published.
    await other.deps.db.platform
      .collection('collections')
      .updateOne(
        { name: 'notes' },
        { $set: { rls: { enabled: true, mode: 'private', ownerField: 'userId' } } },
      );
    await other.deps.cache.set(`pv:${projectId}`, 'missed-message', 3600);
    expect((await list(other, keys.publishable)).status).to.equal(200); // still the pushed version
    await new Promise((resolve) => setTimeout(resolve, LOCAL_VERSION_MS + 100));
    expect((await list(other, keys.publishable)).status).to.equal(401);
  });

  it('forgets a deleted project in every process at once', async () => {
    expect((await list(other, keys.secret)).status).to.equal(200);
    expect((await dash.delete(`/api/projects/${projectId}`)).status).to.equal(200);
    expect((await list(other, keys.secret)).status).to.equal(401);
  });
});
