// The Collection Creator over HTTP against the test provider: a chat session whose proposals are
// checked by the collections API's validator and created on confirmation; invalid definitions
// refused with a 502 naming the problem; sessions bound to their developer and project; the
// monthly platform-key cap per plan and the 20 iterations per session on the platform key, absent
// on a supplied key.
import { expect } from 'chai';
import { createDeveloper } from '../helpers/fixtures.js';
import type { ProviderReply } from '../helpers/ai-provider.js';
import { DEVELOPER_KEY, startAiSuite, type AiSuite } from './ai-shared.js';

type Client = AiSuite['app']['client'];
const base = (projectId: string) => `/api/projects/${projectId}/ai/collection-sessions`;
const start = (dash: Client, projectId: string, message = 'A product catalogue') =>
  dash.post(base(projectId), { message });
const send = (dash: Client, projectId: string, sessionId: string, message = 'Add a price') =>
  dash.post(`${base(projectId)}/${sessionId}/messages`, { message });

const products = (extra: Record<string, unknown>[] = []) => ({
  reply: 'Here is a products collection.',
  collection: {
    name: 'products',
    mode: 'schema',
    fields: [
      { name: 'title', type: 'String', required: true },
      { name: 'sku', type: 'String', unique: true },
      ...extra,
    ],
  },
});

describe('AI Collection Creator', () => {
  let suite: AiSuite;
  before(async () => {
    suite = await startAiSuite('ai_creator', { AI_TIMEOUT_MS: '700' });
  });
  after(async () => {
    await suite?.close();
  });

  it('proposes a checked definition, revises it in the chat, and creates it on confirmation', async () => {
    const { fx, dash } = await suite.project('free');
    suite.provider.queue({ json: { reply: 'What does a product have?', collection: null } });
    const first = await start(dash, fx.project.id, 'I sell things');
    expect(first.status).to.equal(201);
    const session = first.body.data.session;
    expect(session).to.deep.include({
      reply: 'What does a product have?',
      proposal: null,
      iterations: 1,
      platformIterationsLeft: 19,
      keySource: 'platform',
    });

    suite.provider.queue({ json: products() });
    const second = await send(dash, fx.project.id, session.id, 'A title and a unique SKU');
    expect(second.status).to.equal(200);
    expect(second.body.data.session.proposal).to.deep.equal({
      name: 'products',
      mode: 'schema',
      fields: [
        { name: 'title', type: 'String', required: true, unique: false },
        { name: 'sku', type: 'String', required: false, unique: true },
      ],
      rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
    });
    // The model saw the whole conversation.
    const roles = suite.provider.calls.at(-1)!.body.messages!.map((m) => m.role);
    expect(roles).to.deep.equal(['system', 'user', 'assistant', 'user']);

    // A reply without a definition keeps the last proposal.
    suite.provider.queue({ json: { reply: 'Anything else?', collection: null } });
    const third = await send(dash, fx.project.id, session.id, 'Looks good');
    expect(third.body.data.session.proposal.name).to.equal('products');
    expect(third.body.data.session.messages).to.have.length(6);

    const created = await dash.post(`${base(fx.project.id)}/${session.id}/confirm`);
    expect(created.status).to.equal(201);
    expect(created.body.data.collection).to.deep.include({ name: 'products', mode: 'schema' });
    const listed = await dash.get(`/api/projects/${fx.project.id}/collections/products`);
    expect(listed.status).to.equal(200);
    // The session ends with the confirmation.
    const again = await dash.post(`${base(fx.project.id)}/${session.id}/confirm`);
    expect(again.status).to.equal(404);
  });

  describe('a definition the collections API would refuse is a 502 naming the problem', () => {
    const cases: [string, ProviderReply, RegExp][] = [
      ['not JSON', { content: 'I would create a table called products' }, /not JSON/],
      ['no reply', { json: { collection: null } }, /"reply" must be a string/],
      [
        'a collection that is not an object',
        { json: { reply: 'ok', collection: 'products' } },
        /"collection" must be an object/,
      ],
      [
        'no fields in schema mode',
        { json: { reply: 'ok', collection: { name: 'things', mode: 'schema', fields: [] } } },
        /At least one field is required/,
      ],
      [
        'a default on a Date',
        {
          json: {
            reply: 'ok',
            collection: { name: 'events', fields: [{ name: 'at', type: 'Date', default: 'now' }] },
          },
        },
        /Default is only allowed/,
      ],
      [
        'a bad name',
        { json: { reply: 'ok', collection: { name: '$where', fields: [{ name: 'a', type: 'String' }] } } },
        /name/,
      ],
      [
        'an operator as a field name',
        { json: { reply: 'ok', collection: { name: 'things', fields: [{ name: '$set', type: 'String' }] } } },
        /\$set/,
      ],
      [
        'an unknown type',
        { json: { reply: 'ok', collection: { name: 'things', fields: [{ name: 'a', type: 'Varchar' }] } } },
        /Varchar|type/,
      ],
      [
        'a Ref to a missing collection',
        {
          json: {
            reply: 'ok',
            collection: { name: 'things', fields: [{ name: 'o', type: 'Ref', ref: 'ghosts' }] },
          },
        },
        /ghosts/,
      ],
      [
        'an existing name',
        { json: { reply: 'ok', collection: { name: 'orders', fields: [{ name: 'a', type: 'String' }] } } },
        /"orders" already exists/,
      ],
    ];
    for (const [name, reply, message] of cases) {
      it(name, async () => {
        const { fx, dash } = await suite.project('free');
        suite.provider.queue(reply);
        const res = await start(dash, fx.project.id);
        expect(res.status).to.equal(502);
        expect(res.body.code).to.equal('AI_INVALID_OUTPUT');
        expect(res.body.message, res.body.message).to.match(
          /^The AI model did not produce a valid collection definition: /,
        );
        expect(res.body.message, res.body.message).to.match(message);
        // Nothing was kept, but the provider billed the answer: the month's single design is used.
        expect(
          await suite.app.deps.db.platform
            .collection('ai_sessions')
            .countDocuments({ projectId: fx.project.id }),
        ).to.equal(0);
        const calls = suite.provider.calls.length;
        const again = await start(dash, fx.project.id);
        expect(again.status).to.equal(403);
        expect(again.body.code).to.equal('AI_LIMIT_REACHED');
        expect(suite.provider.calls.length).to.equal(calls);
      });
    }

    it('in a running session, a refused answer takes its iteration and keeps the last proposal', async () => {
      const { fx, dash } = await suite.project('free');
      suite.provider.queue({ json: products() });
      const { id } = (await start(dash, fx.project.id)).body.data.session;
      suite.provider.queue({
        json: { reply: 'ok', collection: { name: 'products', mode: 'schema', fields: [] } },
      });
      const bad = await send(dash, fx.project.id, id);
      expect(bad.status).to.equal(502);
      suite.provider.queue({ json: { reply: 'still here', collection: null } });
      const next = await send(dash, fx.project.id, id);
      expect(next.body.data.session).to.deep.include({ iterations: 3, platformIterationsLeft: 17 });
      expect(next.body.data.session.proposal.name).to.equal('products');
    });
  });

  describe('sessions', () => {
    it('belong to their developer and project; 404 for others, unknown or expired ones (400 for a malformed id)', async () => {
      const { fx, dash } = await suite.project('pro');
      suite.provider.queue({ json: products() });
      const { id } = (await start(dash, fx.project.id)).body.data.session;
      const member = await createDeveloper(suite.app.services);
      await suite.app.services.repos.projects.addMember(fx.project.id, member.developer.id, 'member');
      const memberDash = suite.app.client.with({ cookie: member.cookie });
      expect((await send(memberDash, fx.project.id, id)).status).to.equal(404);
      expect((await memberDash.post(`${base(fx.project.id)}/${id}/confirm`)).status).to.equal(404);
      const other = await suite.project('pro');
      expect((await send(other.dash, other.fx.project.id, id)).status).to.equal(404);
      expect((await send(dash, fx.project.id, '65f1c2a4b7e8d90012345678')).status).to.equal(404);
      expect((await send(dash, fx.project.id, 'nope')).status).to.equal(400);

      const clock = suite.app.services.ai.clock;
      clock.now = () => new Date(Date.now() + 25 * 3600 * 1000);
      try {
        const expired = await send(dash, fx.project.id, id);
        expect(expired.status).to.equal(404);
        expect(expired.body.message).to.equal('AI session not found or expired');
      } finally {
        clock.now = () => new Date();
      }
    });

    it('answers 409 on confirmation without a proposal, 400 for bad input, 401 without a session', async () => {
      const { fx, dash } = await suite.project('pro');
      suite.provider.queue({ json: { reply: 'Tell me more', collection: null } });
      const { id } = (await start(dash, fx.project.id)).body.data.session;
      const none = await dash.post(`${base(fx.project.id)}/${id}/confirm`);
      expect(none.status).to.equal(409);
      expect(none.body.code).to.equal('AI_NO_PROPOSAL');
      expect((await dash.post(`/api/projects/nope/ai/collection-sessions/${id}/confirm`)).status).to.equal(
        400,
      );
      expect((await send(dash, fx.project.id, id, '')).status).to.equal(400);
      expect((await start(dash, 'nope')).status).to.equal(400);
      expect((await start(dash, '65f1c2a4b7e8d90012345678')).status).to.equal(404);
      expect((await start(suite.app.client, fx.project.id)).status).to.equal(401);
      expect((await send(suite.app.client, fx.project.id, id)).status).to.equal(401);
      expect((await suite.app.client.post(`${base(fx.project.id)}/${id}/confirm`)).status).to.equal(401);
    });

    it("answers 403 PLAN_LIMIT when the project's collection limit is reached; the session stays", async () => {
      const { fx, dash } = await suite.project('pro');
      suite.provider.queue({ json: products() });
      const { id } = (await start(dash, fx.project.id)).body.data.session;
      await suite.app.services.repos.projects.setLimits(fx.project.id, { collectionsPerProject: 0 });
      const res = await dash.post(`${base(fx.project.id)}/${id}/confirm`);
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('PLAN_LIMIT');
      await suite.app.services.repos.projects.setLimits(fx.project.id, {});
      expect((await dash.post(`${base(fx.project.id)}/${id}/confirm`)).status).to.equal(201);
    });

    it('answers 409 when the proposed name was taken meanwhile', async () => {
      const { fx, dash } = await suite.project('pro');
      suite.provider.queue({ json: products() });
      const { id } = (await start(dash, fx.project.id)).body.data.session;
      const direct = await dash.post(`/api/projects/${fx.project.id}/collections`, {
        name: 'products',
        fields: [{ name: 'a', type: 'String' }],
      });
      expect(direct.status).to.equal(201);
      const res = await dash.post(`${base(fx.project.id)}/${id}/confirm`);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('COLLECTION_EXISTS');
    });

    it('provider failures: 401 for a refused supplied key, 504 when it does not answer (an iteration), errors none', async () => {
      const { fx, dash } = await suite.project('pro');
      suite.provider.queue({ json: products() });
      const { id } = (await start(dash, fx.project.id)).body.data.session;
      suite.provider.queue({ delayMs: 1500, content: '{}' }, { delayMs: 1500, content: '{}' });
      expect((await start(dash, fx.project.id)).status).to.equal(504);
      expect((await send(dash, fx.project.id, id)).status).to.equal(504);
      suite.provider.queue({ status: 500 });
      expect((await send(dash, fx.project.id, id)).status).to.equal(502);
      await dash.put('/api/user/me/byok', { aiProviderKey: 'gsk_not_a_key_the_provider_knows' });
      const refused = await send(dash, fx.project.id, id);
      expect(refused.status).to.equal(401);
      expect(refused.body.message).to.equal('Invalid BYOK Groq key provided');
      expect((await start(dash, fx.project.id)).status).to.equal(401);
      await dash.put('/api/user/me/byok', { aiProviderKey: null });
      suite.provider.queue({ json: { reply: 'ok', collection: null } });
      // The answer that came too late may have been billed: it took an iteration, the errors none.
      expect((await send(dash, fx.project.id, id)).body.data.session.iterations).to.equal(3);
    });
  });

  describe('caps', () => {
    it('Free: one schema design per month on the platform key, again from the 1st (UTC)', async () => {
      const { fx, dash } = await suite.project('free');
      const clock = suite.app.services.ai.clock;
      let now = new Date('2027-01-31T23:00:00Z');
      clock.now = () => now;
      try {
        suite.provider.queue({ json: products() });
        const first = await start(dash, fx.project.id);
        expect(first.status).to.equal(201);
        // More messages in the same session are the same design.
        suite.provider.queue({ json: products() });
        expect((await send(dash, fx.project.id, first.body.data.session.id)).status).to.equal(200);
        const second = await start(dash, fx.project.id);
        expect(second.status).to.equal(403);
        expect(second.body.code).to.equal('AI_LIMIT_REACHED');
        expect(second.body.message).to.include('1 Collection Creator schema designs per month');
        now = new Date('2027-02-01T00:00:00Z');
        suite.provider.queue({ json: products() });
        expect((await start(dash, fx.project.id)).status).to.equal(201);
      } finally {
        clock.now = () => new Date();
      }
      await suite.app.services.usage.counter.flush();
      const report = await dash.get(`/api/projects/${fx.project.id}/usage`);
      expect(report.body.data.figures.aiCollectionCreator.used).to.equal(2);
    });

    it('20 iterations per session on the platform key; none on a supplied key', async () => {
      const { fx, dash } = await suite.project('pro');
      suite.provider.fallback = { json: { reply: 'ok', collection: null } };
      try {
        const { id } = (await start(dash, fx.project.id)).body.data.session;
        let last;
        for (let i = 2; i <= 20; i++) last = await send(dash, fx.project.id, id);
        expect(last!.body.data.session).to.deep.include({ iterations: 20, platformIterationsLeft: 0 });
        const capped = await send(dash, fx.project.id, id);
        expect(capped.status).to.equal(403);
        expect(capped.body.code).to.equal('AI_SESSION_LIMIT');
        expect(capped.body.message).to.include('20 iterations');

        await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
        for (let i = 0; i < 6; i++) {
          const res = await send(dash, fx.project.id, id);
          expect(res.status).to.equal(200);
          expect(res.body.data.session.keySource).to.equal('developer');
        }
        const fresh = (await start(dash, fx.project.id)).body.data.session;
        for (let i = 0; i < 24; i++) expect((await send(dash, fx.project.id, fresh.id)).status).to.equal(200);
        expect(suite.provider.calls.at(-1)!.key).to.equal(DEVELOPER_KEY);
      } finally {
        suite.provider.fallback = { json: { type: 'filter', filters: {} } };
      }
    });

    it('concurrent messages cannot pass the session cap', async () => {
      const { fx, dash } = await suite.project('pro');
      suite.provider.fallback = { json: { reply: 'ok', collection: null } };
      try {
        const { id } = (await start(dash, fx.project.id)).body.data.session;
        for (let i = 2; i <= 17; i++) await send(dash, fx.project.id, id);
        const results = await Promise.all(Array.from({ length: 6 }, () => send(dash, fx.project.id, id)));
        expect(results.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 403, 403, 403]);
      } finally {
        suite.provider.fallback = { json: { type: 'filter', filters: {} } };
      }
    });
  });

  describe('the structured log', () => {
    it('never holds a key', () => suite.expectNoKeyLogged());
  });
});
