// The AI tools page in a real browser, against a local OpenAI-compatible provider: the Query
// Builder turns a question into a checked request (an empty question named before sending), and
// the Collection Creator holds a conversation that ends in a confirmed collection.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';
import { startAiProvider, type AiProviderServer } from '../helpers/ai-provider.js';

const PLATFORM_KEY = `gsk_${'plat'.repeat(8)}`;

describe('web dashboard: AI tools', function () {
  this.timeout(120_000);
  let e2e: DashboardE2E;
  let page: Page;
  let provider: AiProviderServer;

  before(async () => {
    provider = await startAiProvider([PLATFORM_KEY]);
    e2e = await startDashboardE2E('web_ai', {
      AI_BASE_URL: provider.baseUrl,
      AI_PLATFORM_KEY: PLATFORM_KEY,
      AI_MODEL: 'test-model',
    });
    page = e2e.page;
    const res = await e2e.context.request.post(`${e2e.origin}/api${e2e.projectPath}/collections`, {
      headers: { origin: e2e.origin },
      data: {
        name: 'orders',
        mode: 'schema',
        fields: [
          { name: 'status', type: 'String' },
          { name: 'total', type: 'Number' },
        ],
      },
    });
    expect(res.status(), await res.text()).to.equal(201);
  });
  shootFailures('ai', () => e2e);
  after(async () => {
    await e2e?.close();
    await provider?.close();
  });

  it('builds a checked query from a question, naming an empty one first', async () => {
    await page.goto(`${e2e.origin}${e2e.projectPath}/ai`);
    await page.getByRole('heading', { name: 'AI tools' }).waitFor();
    await page.getByRole('button', { name: 'Build query' }).click();
    await page.locator('#qb-heading ~ form .field-error').getByText('Required.').waitFor();
    expect(provider.calls).to.have.length(0);
    provider.queue({
      json: {
        type: 'filter',
        filters: { status: 'paid' },
        sort: '-total',
        limit: 20,
        explanation: 'Paid orders, largest first.',
      },
    });
    await page.getByLabel('Question').fill('the 20 largest paid orders');
    await page.getByRole('button', { name: 'Build query' }).click();
    const result = page.getByTestId('ai-query');
    await result.getByText('Paid orders, largest first.').waitFor();
    expect(await result.locator('code').textContent()).to.match(/^GET \/api\/data\/orders\?/);
    await e2e.checkPage('ai');
  });

  it('holds a conversation that ends in a confirmed collection', async () => {
    provider.queue({ json: { reply: 'What does a product have?', collection: null } });
    await page.getByLabel('What should the collection hold?').fill('I sell things');
    await page.getByRole('button', { name: 'Start' }).click();
    const conversation = page.getByRole('list', { name: 'Conversation' });
    await conversation.getByText('What does a product have?').waitFor();
    provider.queue({
      json: {
        reply: 'Here is a products collection.',
        collection: {
          name: 'products',
          mode: 'schema',
          fields: [
            { name: 'title', type: 'String', required: true },
            { name: 'price', type: 'Number' },
          ],
        },
      },
    });
    await page.getByLabel('Your answer').fill('A title and a price');
    await page.getByRole('button', { name: 'Send' }).click();
    await conversation.getByText('Here is a products collection.').waitFor();
    expect(await conversation.locator('li .who').allTextContents()).to.deep.equal([
      'You',
      'Assistant',
      'You',
      'Assistant',
    ]);
    const proposal = page.getByTestId('ai-proposal');
    await proposal.getByRole('heading', { name: 'Proposed: products (schema)' }).waitFor();
    expect(await proposal.getByRole('rowheader').allTextContents()).to.deep.equal(['title', 'price']);
    await e2e.checkPage('ai-conversation');
    await proposal.getByRole('button', { name: 'Create this collection' }).click();
    await page
      .getByRole('alertdialog', { name: 'Create the collection products?' })
      .getByRole('button', { name: 'Create collection' })
      .click();
    await page.getByRole('heading', { name: 'Collection “products”' }).waitFor();
    expect(e2e.consoleErrors).to.deep.equal([]);
  });
});
