import { expect } from 'chai';
import { startTestApp, startTestApps } from '../helpers/app.js';
import { createProjectFixture } from '../helpers/fixtures.js';
import { EMBEDDED_WARN_DOCUMENTS } from '../../src/services/health.js';

describe('The embedded engine, told (health and dashboard)', () => {
  it('GET /api/health names the engine: the embedded one with its note, another without', async () => {
    const plain = await startTestApp('public', 'engine_plain');
    try {
      const res = await plain.client.get('/api/health');
      expect(res.status).to.equal(200);
      expect(res.body.data.engine).to.deep.equal({ embedded: false });
    } finally {
      await plain.close();
    }
    const embedded = await startTestApp('public', 'engine_embedded', { EMBEDDED_DATABASE: 'true' });
    try {
      const res = await embedded.client.get('/api/health');
      expect(res.status).to.equal(200);
      expect(res.body.data.engine.embedded).to.equal(true);
      expect(res.body.data.engine.note).to.include('development and small data').and.include('MONGODB_URI');
    } finally {
      await embedded.close();
    }
  });

  it('the overview gets document counts, and a warning once a collection passes the documented size', async () => {
    const apps = await startTestApps('engine_sizes', { EMBEDDED_DATABASE: 'true' });
    try {
      const p = await createProjectFixture(apps.dashboard.services, 'Sizes');
      const dash = apps.dashboard.client.with({ cookie: p.cookie });
      const path = `/api/projects/${p.project.id}/collection-sizes`;
      expect(
        (
          await dash.post(`/api/projects/${p.project.id}/collections`, {
            name: 'big',
            fields: [{ name: 'n', type: 'Number' }],
          })
        ).status,
      ).to.equal(201);
      const big = apps.dashboard.deps.db.project(p.project.id).collection('big');
      await big.insertMany(Array.from({ length: EMBEDDED_WARN_DOCUMENTS - 1 }, (_, n) => ({ n })));

      const below = await dash.get(path);
      expect(below.status, below.text).to.equal(200);
      expect(below.body.data).to.deep.include({
        warnAtDocuments: EMBEDDED_WARN_DOCUMENTS,
        collections: [{ name: 'big', documents: EMBEDDED_WARN_DOCUMENTS - 1, declaredIndexes: 0 }],
        embeddedEngineWarning: null,
      });
      expect(below.body.data.engine.embedded).to.equal(true);

      await big.insertOne({ n: -1 });
      const past = await dash.get(path);
      expect(past.body.data.embeddedEngineWarning)
        .to.include('"big" holds 10,000 documents')
        .and.include('MONGODB_URI');

      const stranger = await createProjectFixture(apps.dashboard.services, 'Other');
      expect((await apps.dashboard.client.with({ cookie: stranger.cookie }).get(path)).status).to.equal(404);
      expect((await apps.dashboard.client.get(path)).status).to.equal(401);
      expect((await dash.get('/api/projects/nope/collection-sizes')).status).to.equal(400);
    } finally {
      await apps.close();
    }
  });
});
