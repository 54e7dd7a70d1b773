// The Query Builder over HTTP against the test provider: answers checked by the data API's own
// parsers and returned unrun; malformed and hostile model output refused with a 502 naming the
// problem; provider failures; `users` refused; the platform-key cap per plan and month (atomic,
// reset on the first of the month UTC, absent on a supplied key); usage counted.
import { expect } from 'chai';
import type { ProviderReply } from '../helpers/ai-provider.js';
import { DEVELOPER_KEY, startAiSuite, type AiSuite } from './ai-shared.js';

const ask = (dash: AiSuite['app']['client'], projectId: string, body: Record<string, unknown>) =>
  dash.post(`/api/projects/${projectId}/ai/query-builder`, {
    collection: 'orders',
    prompt: 'paid orders',
    ...body,
  });

describe('AI Query Builder', () => {
  let suite: AiSuite;
  before(async () => {
    suite = await startAiSuite('ai_query', { AI_TIMEOUT_MS: '700' });
  });
  after(async () => {
    await suite?.close();
  });

  it('returns list filters checked against the definition, without running them', async () => {
    const { fx, dash } = await suite.project('free');
    suite.provider.queue({
      json: {
        type: 'filter',
        filters: { status: 'paid', total_gte: 100, paidAt_gte: '2026-01-01' },
        sort: '-total',
        limit: 20,
        explanation: 'Paid orders of 100 or more, largest first.',
      },
    });
    const res = await ask(dash, fx.project.id, {});
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({
      collection: 'orders',
      keySource: 'platform',
      query: {
        type: 'filter',
        params: { status: 'paid', total_gte: '100', paidAt_gte: '2026-01-01', sort: '-total', limit: '20' },
        request: 'GET /api/data/orders?status=paid&total_gte=100&paidAt_gte=2026-01-01&sort=-total&limit=20',
        explanation: 'Paid orders of 100 or more, largest first.',
      },
    });
    // The model saw the collection's definition and the prompt.
    const call = suite.provider.calls.at(-1)!;
    expect(call.body.model).to.equal('test-model');
    expect(call.body.messages![0]!.content).to.include('"name":"total","type":"Number"');
    expect(call.body.messages![1]).to.deep.equal({ role: 'user', content: 'paid orders' });
  });

  it('clamps a limit over the maximum as the data API does', async () => {
    const { fx, dash } = await suite.project('free');
    suite.provider.queue({ json: { type: 'filter', filters: { status: 'paid' }, limit: 5000 } });
    const res = await ask(dash, fx.project.id, {});
    expect(res.status).to.equal(200);
    expect(res.body.data.query.params).to.deep.equal({ status: 'paid', limit: '1000' });
  });

  it('returns an allowlisted pipeline, $lookup into a registered collection included', async () => {
    const { fx, dash } = await suite.project('free');
    const pipeline = [
      { $match: { status: 'paid' } },
      { $lookup: { from: 'customers', localField: 'customer', foreignField: '_id', as: 'buyer' } },
      { $group: { _id: '$customer', spent: { $sum: '$total' } } },
      { $sort: { spent: -1 } },
      { $limit: 5 },
    ];
    suite.provider.queue({ content: '```json\n' + JSON.stringify({ type: 'pipeline', pipeline }) + '\n```' });
    const res = await ask(dash, fx.project.id, { prompt: 'top five customers by spend' });
    expect(res.status).to.equal(200);
    expect(res.body.data.query).to.deep.equal({
      type: 'pipeline',
      pipeline,
      request: 'POST /api/data/orders/aggregate',
      explanation: null,
    });
  });

  describe('model output that is not a valid query is a 502 naming the problem, and is not counted', () => {
    const cases: [string, ProviderReply, RegExp][] = [
      ['not JSON', { content: 'Sure! Here is your query: status = paid' }, /not JSON/],
      ['a JSON array', { json: [{ status: 'paid' }] }, /not a JSON object/],
      [
        'an unknown shape',
        { json: { type: 'sql', sql: 'SELECT * FROM orders' } },
        /"type" must be "filter" or "pipeline"/,
      ],
      [
        '$where',
        { json: { type: 'pipeline', pipeline: [{ $match: { $where: 'sleep(1000)' } }] } },
        /\$where/,
      ],
      [
        '$function',
        {
          json: {
            type: 'pipeline',
            pipeline: [{ $addFields: { x: { $function: { body: 'f', args: [], lang: 'js' } } } }],
          },
        },
        /\$function/,
      ],
      [
        '$out',
        { json: { type: 'pipeline', pipeline: [{ $match: {} }, { $out: 'stolen' }] } },
        /\$out is blocked/,
      ],
      [
        '$merge',
        { json: { type: 'pipeline', pipeline: [{ $merge: { into: 'orders' } }] } },
        /\$merge is blocked/,
      ],
      [
        '$lookup into users',
        { json: { type: 'pipeline', pipeline: [{ $lookup: { from: 'users', as: 'u', pipeline: [] } }] } },
        /users/,
      ],
      [
        '$lookup into an unregistered collection',
        { json: { type: 'pipeline', pipeline: [{ $lookup: { from: 'secrets', as: 's', pipeline: [] } }] } },
        /"secrets", which is not a collection of this project/,
      ],
      [
        'an operator object as a filter value',
        { json: { type: 'filter', filters: { status: { $ne: 'void' } } } },
        /single value/,
      ],
      ['an operator as a filter key', { json: { type: 'filter', filters: { $where: '1' } } }, /\$/],
      ['the trash flag', { json: { type: 'filter', filters: { isDeleted: 'true' } } }, /isDeleted/],
      [
        'an unknown field',
        { json: { type: 'filter', filters: { password_exists: 'true' } } },
        /not a field of this collection/,
      ],
      [
        'an unknown field in a pipeline',
        { json: { type: 'pipeline', pipeline: [{ $match: { secret: 1 } }] } },
        /secret is not a field/,
      ],
      ['a wrongly typed value', { json: { type: 'filter', filters: { total_gt: 'lots' } } }, /total_gt/],
      [
        'a regex over 128 characters',
        { json: { type: 'filter', filters: { status_regex: 'a'.repeat(200) } } },
        /128/,
      ],
      ['a limit below 1', { json: { type: 'filter', filters: {}, limit: 0 } }, /limit/],
      ['a sort on an unknown field', { json: { type: 'filter', filters: {}, sort: '-secret' } }, /secret/],
      [
        'a stage outside the allowlist',
        { json: { type: 'pipeline', pipeline: [{ $collStats: {} }] } },
        /not allowed/,
      ],
    ];
    for (const [name, reply, message] of cases) {
      it(name, async () => {
        const { fx, dash } = await suite.project('free');
        suite.provider.queue(reply);
        const res = await ask(dash, fx.project.id, {});
        expect(res.status).to.equal(502);
        expect(res.body.code).to.equal('AI_INVALID_OUTPUT');
        expect(res.body.message).to.match(/^The AI model did not produce a valid query: /);
        expect(res.body.message, res.body.message).to.match(message);
        // The provider billed the answer: it counts against the cap although it was refused.
        expect(await suite.app.services.ai.usage.count(fx.project.id, 'queryBuilder', month())).to.equal(1);
      });
    }

    it('a huge answer is refused while it is read', async () => {
      const { fx, dash } = await suite.project('free');
      suite.provider.queue({
        json: { type: 'filter', filters: { status: 'x'.repeat(2_000_000) } },
      });
      const res = await ask(dash, fx.project.id, {});
      expect(res.status).to.equal(502);
      expect(res.body.code).to.equal('AI_ANSWER_TOO_LARGE');
    });

    it('an answer that is not a chat completion', async () => {
      const { fx, dash } = await suite.project('free');
      suite.provider.queue({ raw: '<html>gateway</html>' }, { raw: JSON.stringify({ choices: [] }) });
      for (let i = 0; i < 2; i++) {
        const res = await ask(dash, fx.project.id, {});
        expect(res.status).to.equal(502);
        expect(res.body.message).to.equal('The AI provider sent something that is not a chat completion');
      }
    });
  });

  describe('provider failures', () => {
    it('a 5xx is a 502 and a 429 a 502 saying so; neither is counted', async () => {
      const { fx, dash } = await suite.project('free');
      suite.provider.queue({ status: 500 }, { status: 503 }, { status: 429 });
      for (const expected of ['status 500', 'status 503', 'rate limiting']) {
        const res = await ask(dash, fx.project.id, {});
        expect(res.status).to.equal(502);
        expect(res.body.message).to.include(expected);
      }
      expect(await suite.app.services.ai.usage.count(fx.project.id, 'queryBuilder', month())).to.equal(0);
    });

    it('no answer within AI_TIMEOUT_MS is a 504', async () => {
      const { fx, dash } = await suite.project('free');
      suite.provider.queue({ delayMs: 1500, content: '{}' });
      const started = Date.now();
      const res = await ask(dash, fx.project.id, {});
      expect(res.status).to.equal(504);
      expect(res.body.code).to.equal('AI_PROVIDER_TIMEOUT');
      expect(Date.now() - started).to.be.below(1400);
    });

    it('an unreachable provider is a 502', async () => {
      const other = await startAiSuite('ai_query_down', { AI_BASE_URL: 'http://127.0.0.1:9/v1' });
      try {
        const { fx, dash } = await other.project('free');
        const res = await ask(dash, fx.project.id, {});
        expect(res.status).to.equal(502);
        expect(res.body.code).to.equal('AI_PROVIDER_UNAVAILABLE');
        // Never reached, so never billed: the slot is given back.
        expect(await other.app.services.ai.usage.count(fx.project.id, 'queryBuilder', month())).to.equal(0);
      } finally {
        await other.close();
      }
    });
  });

  describe('requests', () => {
    it('refuses users (403), an unknown collection (404), a bad body or id (400), no session (401)', async () => {
      const { fx, dash } = await suite.project('free');
      const calls = suite.provider.calls.length;
      const users = await ask(dash, fx.project.id, { collection: 'users' });
      expect(users.status).to.equal(403);
      expect(users.body.code).to.equal('USERS_COLLECTION');
      const unknown = await ask(dash, fx.project.id, { collection: 'nothing' });
      expect(unknown.status).to.equal(404);
      expect((await ask(dash, fx.project.id, { prompt: '' })).status).to.equal(400);
      expect((await ask(dash, 'nope', {})).body.message).to.equal('Invalid project ID');
      expect((await ask(suite.app.client, fx.project.id, {})).status).to.equal(401);
      expect(suite.provider.calls.length).to.equal(calls);
    });

    it('answers 403 AI_KEY_REQUIRED when there is no key at all', async () => {
      const other = await startAiSuite('ai_query_nokey', { AI_PLATFORM_KEY: '' });
      try {
        const { fx, dash } = await other.project('free');
        const res = await ask(dash, fx.project.id, {});
        expect(res.status).to.equal(403);
        expect(res.body.code).to.equal('AI_KEY_REQUIRED');
      } finally {
        await other.close();
      }
    });
  });

  describe('monthly platform-key cap', () => {
    it('Free: 5 per month, taken atomically under concurrency, 403 after, back to zero on the 1st (UTC)', async () => {
      const { fx, dash } = await suite.project('free');
      const clock = suite.app.services.ai.clock;
      let now = new Date('2026-10-31T23:59:58Z');
      clock.now = () => now;
      try {
        const results = await Promise.all(Array.from({ length: 8 }, () => ask(dash, fx.project.id, {})));
        const statuses = results.map((r) => r.status).sort();
        expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 403, 403, 403]);
        const refused = results.find((r) => r.status === 403)!;
        expect(refused.body.code).to.equal('AI_LIMIT_REACHED');
        expect(refused.body.message).to.include('5 Query Builder requests per month');
        expect(refused.body.message).to.include('2026-11-01');
        // A supplied key is not capped.
        await suite.setPlan(fx, 'pro');
        await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
        await suite.setPlan(fx, 'free');
        // Own keys are Pro: on Free the stored key is ignored, so the cap still applies.
        expect((await ask(dash, fx.project.id, {})).status).to.equal(403);

        now = new Date('2026-11-01T00:00:00Z');
        const fresh = await ask(dash, fx.project.id, {});
        expect(fresh.status).to.equal(200);
        expect(await suite.app.services.ai.usage.count(fx.project.id, 'queryBuilder', '2026-11')).to.equal(1);
        expect(await suite.app.services.ai.usage.count(fx.project.id, 'queryBuilder', '2026-10')).to.equal(5);
      } finally {
        clock.now = () => new Date();
      }
    });

    it('Pro: 20 per month; a supplied key goes past the cap and is not counted against it', async () => {
      const { fx, dash } = await suite.project('pro');
      for (let i = 0; i < 20; i++) expect((await ask(dash, fx.project.id, {})).status).to.equal(200);
      const capped = await ask(dash, fx.project.id, {});
      expect(capped.status).to.equal(403);
      expect(capped.body.message).to.include('20 Query Builder requests per month');
      await dash.put('/api/user/me/byok', { aiProviderKey: DEVELOPER_KEY });
      for (let i = 0; i < 3; i++) {
        const res = await ask(dash, fx.project.id, {});
        expect(res.status).to.equal(200);
        expect(res.body.data.keySource).to.equal('developer');
      }
      expect(await suite.app.services.ai.usage.count(fx.project.id, 'queryBuilder', month())).to.equal(20);
    });

    it('counts the requests in the usage report', async () => {
      const { fx, dash } = await suite.project('free');
      for (let i = 0; i < 2; i++) await ask(dash, fx.project.id, {});
      await suite.app.services.usage.counter.flush();
      const report = await dash.get(`/api/projects/${fx.project.id}/usage`);
      expect(report.body.data.figures.aiQueryBuilder).to.deep.include({ used: 2, limit: 5 });
    });
  });

  describe('the structured log', () => {
    it('never holds a key', () => suite.expectNoKeyLogged());
  });
});

const month = () => new Date().toISOString().slice(0, 7);
