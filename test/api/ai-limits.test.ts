// The AI tools' limits against abuse (issue 29 #5): on the platform key a model answer the provider
// billed keeps its slot of the monthly cap even when the answer is refused, so the Free cap bites;
// a call the provider did not bill (unreachable, error status) gives it back. And the per-minute
// limits per project and per developer, driven past their edge.
import { expect } from 'chai';
import type { ApiResponse } from '../helpers/client.js';
import { DEVELOPER_KEY, startAiSuite, type AiSuite } from './ai-shared.js';

type Dash = AiSuite['app']['client'];
const ask = (dash: Dash, projectId: string) =>
  dash.post(`/api/projects/${projectId}/ai/query-builder`, { collection: 'orders', prompt: 'paid orders' });
const month = () => new Date().toISOString().slice(0, 7);

describe('AI limits', () => {
  describe('the monthly cap counts every call the provider billed', () => {
    let suite: AiSuite;
    before(async () => {
      suite = await startAiSuite('ai_limits_cap', { AI_TIMEOUT_MS: '700' });
    });
    after(async () => {
      await suite?.close();
    });

    it('Free: refused answers use the month up; the next request never reaches the provider', async () => {
      const { fx, dash } = await suite.project('free');
      const usage = () => suite.app.services.ai.usage.count(fx.project.id, 'queryBuilder', month());
      // Error statuses are not billed: their slots are given back.
      suite.provider.queue({ status: 500 }, { status: 429 });
      for (let i = 0; i < 2; i++) expect((await ask(dash, fx.project.id)).status).to.equal(502);
      expect(await usage()).to.equal(0);
      // Answers are billed, whatever they hold, and so is one that came too late.
      suite.provider.queue(
        { content: 'not json at all' },
        { json: { type: 'pipeline', pipeline: [{ $out: 'stolen' }] } },
        { raw: JSON.stringify({ choices: [] }) },
        { json: { type: 'filter', filters: { secret_gt: 1 } } },
        { delayMs: 1500, content: '{}' },
      );
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await ask(dash, fx.project.id)).status);
      expect(statuses).to.deep.equal([502, 502, 502, 502, 504]);
      expect(await usage()).to.equal(5);
      const calls = suite.provider.calls.length;
      const capped = await ask(dash, fx.project.id);
      expect(capped.status).to.equal(403);
      expect(capped.body.code).to.equal('AI_LIMIT_REACHED');
      expect(suite.provider.calls.length, 'the provider was not called').to.equal(calls);
    });
  });

  describe('per-minute limits', () => {
    let suite: AiSuite;
    before(async () => {
      suite = await startAiSuite('ai_limits_rate', {
        AI_PLATFORM_REQUESTS_PER_MINUTE: '3',
        AI_REQUESTS_PER_MINUTE: '4',
      });
    });
    after(async () => {
      await suite?.close();
    });

    const expectLimited = (res: ApiResponse, limit: number, what: string) => {
      expect(res.status, res.text).to.equal(429);
      expect(res.body.code).to.equal('AI_RATE_LIMITED');
      expect(res.body.message).to.include(`at most ${limit} a minute ${what}`);
      // One request comes back every 60/limit seconds.
      expect(Number(res.headers.get('retry-after'))).to.be.within(1, Math.ceil(60 / limit));
    };

    it('platform key: 3 a minute per project; the 4th is a 429 and never reaches the provider', async () => {
      const { fx, dash } = await suite.project('pro');
      const statuses = await Promise.all(Array.from({ length: 5 }, () => ask(dash, fx.project.id)));
      expect(statuses.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 429, 429]);
      const calls = suite.provider.calls.length;
      expectLimited(await ask(dash, fx.project.id), 3, "per project on the platform's AI key");
      expect(suite.provider.calls.length).to.equal(calls);
      // The refusals took no slot of the monthly cap.
      expect(await suite.app.services.ai.usage.count(fx.project.id, 'queryBuilder', month())).to.equal(3);
    });

    it("platform key: a developer's budget spans their projects; other members keep theirs", async () => {
      const first = await suite.project('pro');
      for (let i = 0; i < 3; i++) expect((await ask(first.dash, first.fx.project.id)).status).to.equal(200);
      // A second project of the same developer: its own bucket has room, the developer's has not.
      const second = await suite.project('pro');
      const secondOwner = suite.app.client.with({ cookie: second.fx.cookie });
      await suite.app.services.repos.projects.addMember(second.fx.project.id, first.fx.developer.id, 'admin');
      expectLimited(await ask(first.dash, second.fx.project.id), 3, "per developer on the platform's AI key");
      expect((await ask(secondOwner, second.fx.project.id)).status).to.equal(200);
    });

    it('applies to the Collection Creator as well', async () => {
      const { fx, dash } = await suite.project('pro');
      suite.provider.fallback = { json: { reply: 'Tell me more.', collection: null } };
      try {
        const started = await dash.post(`/api/projects/${fx.project.id}/ai/collection-sessions`, {
          message: 'a shop',
        });
        expect(started.status).to.equal(201);
        const id = started.body.data.session.id;
        const send = () =>
          dash.post(`/api/projects/${fx.project.id}/ai/collection-sessions/${id}/messages`, {
            message: 'go',
          });
        for (let i = 0; i < 2; i++) expect((await send()).status).to.equal(200);
        expectLimited(await send(), 3, "per project on the platform's AI key");
        expectLimited(
          await dash.post(`/api/projects/${fx.project.id}/ai/collection-sessions`, { message: 'again' }),
          3,
          "per project on the platform's AI key",
        );
      } finally {
        suite.provider.fallback = { json: { type: 'filter', filters: {}, explanation: 'everything' } };
      }
    });

    it('a supplied key has its own, larger budget', async () => {
      const { fx, dash } = await suite.project('pro');
      for (let i = 0; i < 3; i++) expect((await ask(dash, fx.project.id)).status).to.equal(200);
      expect((await ask(dash, fx.project.id)).status).to.equal(429);
      await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await ask(dash, fx.project.id)).status);
      expect(statuses).to.deep.equal([200, 200, 200, 200, 429]);
      expectLimited(await ask(dash, fx.project.id), 4, 'per project on a supplied AI key');
    });
  });
});
