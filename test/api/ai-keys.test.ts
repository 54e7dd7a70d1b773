// AI provider keys over HTTP: saving and clearing at account and project level (format, Pro gate,
// admins only, encrypted at rest, only `hasAiProviderKey` shown), and the resolution order of the
// key each AI request runs on, as seen by the provider itself.
import { expect } from 'chai';
import { createDeveloper } from '../helpers/fixtures.js';
import { ObjectId } from '../../src/db/ids.js';
import {
  DEVELOPER_KEY,
  PLATFORM_KEY,
  PROJECT_KEY,
  REFUSED_KEY,
  startAiSuite,
  type AiSuite,
} from './ai-shared.js';

const SAVED = 'BYOK key saved successfully';
const PRO_ONLY = 'Bring Your Own AI Key (Groq) is a Pro feature. Please upgrade to continue.';

describe('AI provider keys', () => {
  let suite: AiSuite;
  before(async () => {
    suite = await startAiSuite('ai_keys');
  });
  after(async () => {
    await suite?.close();
  });

  describe('PUT /api/user/me/byok', () => {
    it('needs a dashboard session', async () => {
      const res = await suite.app.client.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
      expect(res.status).to.equal(401);
    });

    it('is a Pro feature: 403 with the spec message on Free, and clearing works on any plan', async () => {
      const { dash } = await suite.project('free');
      const res = await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ message: PRO_ONLY, code: 'PRO_FEATURE' });
      const cleared = await dash.put('/api/user/me/byok', { aiProviderKey: null });
      expect(cleared.status).to.equal(200);
      expect(cleared.body).to.deep.equal({
        success: true,
        data: { hasAiProviderKey: false },
        message: SAVED,
      });
    });

    it('checks the format: the prefix, at most 200 characters, no spaces', async () => {
      const { dash } = await suite.project('pro');
      const cases: [unknown, RegExp][] = [
        ['sk-0123456789abcdef', /"message":"it must start with \\"gsk_\\""/],
        ['gsk_' + 'a'.repeat(197), /"message":"it must be at most 200 characters"/],
        ['gsk_has space', /"message":"it may contain only printable characters without spaces"/],
        [42, /aiProviderKey/],
      ];
      for (const [aiProviderKey, message] of cases) {
        const res = await dash.put('/api/user/me/byok', { aiProviderKey });
        expect(res.status, String(aiProviderKey)).to.equal(400);
        expect(JSON.stringify(res.body)).to.match(message);
        if (typeof aiProviderKey === 'string') {
          expect(res.body.message).to.match(/^Invalid Groq API key: it must start with "gsk_"/);
        }
      }
      const missing = await dash.put('/api/user/me/byok', {});
      expect(missing.status).to.equal(400);
      // Exactly 200 characters is accepted.
      const longest = await dash.put('/api/user/me/byok', { aiProviderKey: 'gsk_' + 'a'.repeat(196) });
      expect(longest.status).to.equal(200);
    });

    it('saves the key encrypted, shows only hasAiProviderKey, and clears it with null', async () => {
      const { fx, dash } = await suite.project('pro');
      const res = await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: { hasAiProviderKey: true }, message: SAVED });
      const me = await dash.get('/api/user/me');
      expect(me.body.data.developer.hasAiProviderKey).to.equal(true);
      expect(me.text).not.to.include(DEVELOPER_KEY);
      const stored = await suite.app.deps.db.platform
        .collection('developers')
        .findOne({ email: fx.developer.email });
      expect(stored!.aiKeyEnc).to.be.a('string').and.match(/^v1\./);
      expect(JSON.stringify(stored)).not.to.include(DEVELOPER_KEY.slice(4));
      const cleared = await dash.put('/api/user/me/byok', { aiProviderKey: null });
      expect(cleared.body.data).to.deep.equal({ hasAiProviderKey: false });
      expect((await dash.get('/api/user/me')).body.data.developer.hasAiProviderKey).to.equal(false);
    });
  });

  describe('PUT /api/projects/{projectId}/byok', () => {
    it('answers 400 for a malformed id and 404 for members who are not admins and for strangers', async () => {
      const { fx, dash } = await suite.project('pro');
      const bad = await dash.put('/api/projects/not-an-id/byok', { aiProviderKey: PROJECT_KEY });
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.equal('Invalid project ID');
      const member = await createDeveloper(suite.app.services);
      await suite.app.services.repos.projects.addMember(fx.project.id, member.developer.id, 'member');
      const stranger = await createDeveloper(suite.app.services);
      for (const cookie of [member.cookie, stranger.cookie]) {
        const res = await suite.app.client
          .with({ cookie })
          .put(`/api/projects/${fx.project.id}/byok`, { aiProviderKey: PROJECT_KEY });
        expect(res.status).to.equal(404);
        expect(res.body.message).to.equal('Project not found or access denied');
      }
      const unknown = await dash.put('/api/projects/65f1c2a4b7e8d90012345678/byok', { aiProviderKey: null });
      expect(unknown.status).to.equal(404);
      const anonymous = await suite.app.client.put(`/api/projects/${fx.project.id}/byok`, {
        aiProviderKey: null,
      });
      expect(anonymous.status).to.equal(401);
    });

    it('is a Pro feature by the project limits; 400 for a bad format', async () => {
      const free = await suite.project('free');
      const res = await free.dash.put(`/api/projects/${free.fx.project.id}/byok`, {
        aiProviderKey: PROJECT_KEY,
      });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal(PRO_ONLY);
      const pro = await suite.project('pro');
      const wrong = await pro.dash.put(`/api/projects/${pro.fx.project.id}/byok`, {
        aiProviderKey: 'xai-123',
      });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.message).to.match(/invalid.*must start with "gsk_"/i);
    });

    it('saves and clears the key; the project answers show hasAiProviderKey only', async () => {
      const { fx, dash } = await suite.project('pro');
      const res = await dash.put(`/api/projects/${fx.project.id}/byok`, { aiProviderKey: PROJECT_KEY });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: { hasAiProviderKey: true }, message: SAVED });
      const one = await dash.get(`/api/projects/${fx.project.id}`);
      expect(one.body.data.project.hasAiProviderKey).to.equal(true);
      const list = await dash.get('/api/projects');
      expect(list.body.data.projects[0].hasAiProviderKey).to.equal(true);
      for (const text of [one.text, list.text]) expect(text).not.to.include(PROJECT_KEY);
      const stored = await suite.app.deps.db.platform
        .collection('projects')
        .findOne({ _id: new ObjectId(fx.project.id) });
      expect(stored!.aiKeyEnc).to.match(/^v1\./);
      expect(JSON.stringify(stored)).not.to.include(PROJECT_KEY.slice(4));
      await dash.put(`/api/projects/${fx.project.id}/byok`, { aiProviderKey: null });
      expect((await dash.get(`/api/projects/${fx.project.id}`)).body.data.project.hasAiProviderKey).to.equal(
        false,
      );
    });
  });

  describe('resolution order', () => {
    const ask = (dash: AiSuite['app']['client'], projectId: string) =>
      dash.post(`/api/projects/${projectId}/ai/query-builder`, {
        collection: 'orders',
        prompt: 'all orders',
      });

    it('uses the project key, then the caller’s account key, then the platform key', async () => {
      const { fx, dash } = await suite.project('pro');
      await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
      await dash.put(`/api/projects/${fx.project.id}/byok`, { aiProviderKey: PROJECT_KEY });
      const seen: [string | undefined, string][] = [];
      for (const step of ['project', 'developer', 'platform']) {
        const before = suite.provider.calls.length;
        const res = await ask(dash, fx.project.id);
        expect(res.status, step).to.equal(200);
        expect(suite.provider.calls.length).to.equal(before + 1);
        seen.push([suite.provider.calls.at(-1)!.key, res.body.data.keySource]);
        expect(res.text).not.to.include('gsk_');
        if (step === 'project')
          await dash.put(`/api/projects/${fx.project.id}/byok`, { aiProviderKey: null });
        if (step === 'developer') await dash.put('/api/user/me/byok', { aiProviderKey: null });
      }
      expect(seen).to.deep.equal([
        [PROJECT_KEY, 'project'],
        [DEVELOPER_KEY, 'developer'],
        [PLATFORM_KEY, 'platform'],
      ]);
    });

    it("a member's own account key serves that member; the project key overrides it", async () => {
      const { fx, dash } = await suite.project('pro');
      const member = await createDeveloper(suite.app.services);
      await suite.app.services.repos.developers.setPlan(member.developer.id, 'pro');
      await suite.app.services.repos.projects.addMember(fx.project.id, member.developer.id, 'member');
      const memberDash = suite.app.client.with({ cookie: member.cookie });
      await memberDash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
      expect((await ask(memberDash, fx.project.id)).body.data.keySource).to.equal('developer');
      expect(suite.provider.calls.at(-1)!.key).to.equal(DEVELOPER_KEY);
      expect((await ask(dash, fx.project.id)).body.data.keySource).to.equal('platform');
      await dash.put(`/api/projects/${fx.project.id}/byok`, { aiProviderKey: PROJECT_KEY });
      expect((await ask(memberDash, fx.project.id)).body.data.keySource).to.equal('project');
      expect(suite.provider.calls.at(-1)!.key).to.equal(PROJECT_KEY);
    });

    it('ignores a stored key once the plan no longer allows own keys', async () => {
      const { fx, dash } = await suite.project('pro');
      await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
      await suite.setPlan(fx, 'free');
      const res = await ask(dash, fx.project.id);
      expect(res.body.data.keySource).to.equal('platform');
      expect(suite.provider.calls.at(-1)!.key).to.equal(PLATFORM_KEY);
    });

    it('answers 401 "Invalid BYOK Groq key provided" when the provider refuses a supplied key, without the key', async () => {
      const { fx, dash } = await suite.project('pro');
      await dash.put('/api/user/me/byok', { aiProviderKey: REFUSED_KEY });
      const res = await ask(dash, fx.project.id);
      expect(res.status).to.equal(401);
      expect(res.body).to.include({ message: 'Invalid BYOK Groq key provided', code: 'INVALID_AI_KEY' });
      expect(suite.provider.calls.at(-1)!.key).to.equal(REFUSED_KEY);
      expect(res.text).not.to.include(REFUSED_KEY);
    });

    it('answers 502 when the provider refuses the platform key: the developer is not blamed', async () => {
      const { fx, dash } = await suite.project('free');
      suite.provider.keys.delete(PLATFORM_KEY);
      try {
        const res = await ask(dash, fx.project.id);
        expect(res.status).to.equal(502);
        expect(res.body.code).to.equal('AI_PROVIDER_ERROR');
      } finally {
        suite.provider.keys.add(PLATFORM_KEY);
      }
    });
  });

  describe('the structured log', () => {
    it('holds the AI requests but never a key', () => {
      suite.expectNoKeyLogged();
      const calls = suite.app.logLines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'AI provider request');
      expect(calls.map((l) => l.keySource)).to.include.members(['project', 'developer', 'platform']);
      // Each line carries the request id of the dashboard request it served.
      for (const line of calls) expect(line.requestId).to.be.a('string');
    });
  });
});
