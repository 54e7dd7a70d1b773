// Which AI key a member's AI requests would run on, over HTTP, before any is made: the project's,
// the account's, the platform's, or none (an installation without AI_PLATFORM_KEY), with the
// key itself never in the answer.
import { expect } from 'chai';
import { DEVELOPER_KEY, PLATFORM_KEY, PROJECT_KEY, startAiSuite, type AiSuite } from './ai-shared.js';

for (const platform of [true, false]) {
  describe(`GET /api/projects/{id}/ai (${platform ? 'with' : 'without'} a platform key)`, () => {
    let suite: AiSuite;
    before(async () => {
      suite = await startAiSuite(
        platform ? 'ai_status' : 'ai_status_none',
        platform ? {} : { AI_PLATFORM_KEY: '' },
      );
    });
    after(async () => {
      await suite?.close();
    });

    const status = async (dash: Awaited<ReturnType<AiSuite['project']>>['dash'], projectId: string) => {
      const res = await dash.get(`/api/projects/${projectId}/ai`);
      expect(res.status, res.text).to.equal(200);
      for (const key of [PLATFORM_KEY, DEVELOPER_KEY, PROJECT_KEY]) expect(res.text).to.not.include(key);
      return res.body.data;
    };

    it('names the key source in the resolution order', async () => {
      const { fx, dash } = await suite.project('free');
      expect(await status(dash, fx.project.id)).to.deep.equal({
        keySource: platform ? 'platform' : null,
        providerName: 'Groq',
        ownKeyAllowed: false,
      });
      await suite.setPlan(fx, 'pro');
      expect((await status(dash, fx.project.id)).ownKeyAllowed).to.equal(true);
      expect((await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY })).status).to.equal(200);
      expect((await status(dash, fx.project.id)).keySource).to.equal('developer');
      const saved = await dash.put(`/api/projects/${fx.project.id}/byok`, { aiProviderKey: PROJECT_KEY });
      expect(saved.status, saved.text).to.equal(200);
      expect((await status(dash, fx.project.id)).keySource).to.equal('project');
    });

    it('is for the project’s members: 401 without a session, 404 for another developer, 400 for a bad id', async () => {
      const { fx } = await suite.project('free');
      const other = await suite.project('free');
      expect((await suite.app.client.get(`/api/projects/${fx.project.id}/ai`)).status).to.equal(401);
      expect((await other.dash.get(`/api/projects/${fx.project.id}/ai`)).status).to.equal(404);
      expect((await other.dash.get('/api/projects/nope/ai')).status).to.equal(400);
    });
  });
}
