import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface SlowQuery {
  collection: string;
  kind: string;
  filter: { equality: string[]; range: string[]; other: string[] };
  sort: { field: string; direction: number }[];
  count: number;
  index: string | null;
  filterServed: boolean;
  sortServed: boolean;
  suggestedIndex: { field: string; direction: number }[] | null;
}

describe('Slow queries (dashboard)', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let p: ProjectFixture;
  let dash: ApiClient;
  let secret: ApiClient;
  const slowPath = () => `/api/projects/${p.project.id}/slow-queries`;

  /** The recorded slow queries, once `ready` holds (records are written after the answer). */
  async function slowQueries(ready: (q: SlowQuery[]) => boolean = (q) => q.length > 0): Promise<SlowQuery[]> {
    for (let i = 0; ; i++) {
      const res = await dash.get(slowPath());
      expect(res.status, res.text).to.equal(200);
      if (ready(res.body.data.queries) || i >= 40) return res.body.data.queries;
      await sleep(50);
    }
  }

  before(async () => {
    // Every list is "slow" at 0 ms: the record of each request can be read back.
    apps = await startTestApps('slow_queries', { SLOW_QUERY_MS: '0' });
    p = await createProjectFixture(apps.dashboard.services, 'Slow');
    dash = apps.dashboard.client.with({ cookie: p.cookie });
    secret = apps.public.client.with({ 'x-api-key': p.secretKey });
    const created = await dash.post(`/api/projects/${p.project.id}/collections`, {
      name: 'items',
      mode: 'schema',
      fields: [
        { name: 'status', type: 'String' },
        { name: 'score', type: 'Number' },
      ],
    });
    expect(created.status, created.text).to.equal(201);
    for (let i = 0; i < 5; i++) {
      await secret.post('/api/data/items', { status: i % 2 ? 'open' : 'closed', score: i });
    }
  });
  after(() => apps.close());

  it('records a list no index serves by its shape, without values, and suggests the index', async () => {
    const res = await secret.get('/api/data/items?status=open&score_gte=1&sort=-score');
    expect(res.status).to.equal(200);
    const [query, ...rest] = await slowQueries();
    expect(rest).to.deep.equal([]);
    expect(query!).to.deep.include({
      collection: 'items',
      kind: 'list',
      filter: { equality: ['status'], range: ['score'], other: [] },
      sort: [
        { field: 'score', direction: -1 },
        { field: '_id', direction: 1 },
      ],
      count: 1,
      index: null,
      filterServed: false,
      sortServed: false,
    });
    expect(query!.suggestedIndex).to.deep.equal([
      { field: 'status', direction: 1 },
      { field: 'score', direction: -1 },
      { field: '_id', direction: 1 },
    ]);
    expect(JSON.stringify(query!)).not.to.include('open');

    // The same shape again counts on the same entry.
    await secret.get('/api/data/items?status=closed&score_gte=3&sort=-score');
    const again = await slowQueries((q) => q[0]!.count === 2);
    expect(again).to.have.length(1);
    expect(again[0]!.count).to.equal(2);
  });

  it('says which index serves it once the suggested index exists (one call from the suggestion)', async () => {
    const [query] = await slowQueries();
    const keys = query!.suggestedIndex;
    const created = await dash.post(`/api/projects/${p.project.id}/collections/items/indexes`, { keys });
    expect(created.status, created.text).to.equal(201);
    const [served] = await slowQueries();
    expect(served).to.deep.include({
      index: created.body.data.index.name,
      filterServed: true,
      sortServed: true,
      suggestedIndex: null,
    });

    const cleared = await dash.delete(slowPath());
    expect(cleared.status).to.equal(200);
    expect(cleared.body.data.removed).to.equal(1);
    expect((await dash.get(slowPath())).body.data.queries).to.deep.equal([]);
    // A count is recorded as such, without the sort.
    expect((await secret.get('/api/data/items?status=open&count=true')).status).to.equal(200);
    const [count] = await slowQueries();
    expect(count).to.deep.include({ kind: 'count', sort: [], index: created.body.data.index.name });
  });

  it('keeps them for members only, filtered by collection', async () => {
    const other = await createProjectFixture(apps.dashboard.services, 'Other');
    const stranger = apps.dashboard.client.with({ cookie: other.cookie });
    expect((await stranger.get(slowPath())).status).to.equal(404);
    expect((await stranger.delete(slowPath())).status).to.equal(404);
    expect((await apps.dashboard.client.get(slowPath())).status).to.equal(401);
    expect((await apps.dashboard.client.delete(slowPath())).status).to.equal(401);
    const none = await dash.get(`${slowPath()}?collection=nowhere`);
    expect(none.body.data.queries).to.deep.equal([]);
    expect(none.body.data.thresholdMs).to.equal(0);
    expect((await dash.get(`/api/projects/not-an-id/slow-queries`)).status).to.equal(400);
    expect((await dash.delete(`/api/projects/not-an-id/slow-queries`)).status).to.equal(400);
  });
});
