// Shared setup of the AI suites: the test provider, the dashboard role pointed at it with its log
// captured, projects on either plan, and the keys the provider accepts.
import { expect } from 'chai';
import { startAiProvider, type AiProviderServer } from '../helpers/ai-provider.js';
import { PLATFORM_KEY, startAiApp, type AiTestApp } from '../helpers/ai-app.js';
import {
  createCollectionFixture,
  createOperator,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { ApiClient } from '../helpers/client.js';

export const DEVELOPER_KEY = 'gsk_developer_aaaaaaaaaaaaaaaaaaaaaaaa';
export const PROJECT_KEY = 'gsk_project_bbbbbbbbbbbbbbbbbbbbbbbbbb';
export const REFUSED_KEY = 'gsk_revoked_cccccccccccccccccccccccccc';
export const ALL_KEYS = [PLATFORM_KEY, DEVELOPER_KEY, PROJECT_KEY, REFUSED_KEY];
export { PLATFORM_KEY };

export interface AiSuite {
  provider: AiProviderServer;
  app: AiTestApp;
  project(plan?: 'free' | 'pro'): Promise<{ fx: ProjectFixture; dash: ApiClient }>;
  setPlan(fx: ProjectFixture, plan: 'free' | 'pro'): Promise<void>;
  /** Fails when any log line or response body so far holds one of the keys. */
  expectNoKeyLogged(): void;
  close(): Promise<void>;
}

export async function startAiSuite(name: string, overrides: Record<string, string> = {}): Promise<AiSuite> {
  const provider = await startAiProvider([PLATFORM_KEY, DEVELOPER_KEY, PROJECT_KEY]);
  const app = await startAiApp(name, provider, overrides);
  await createOperator(app.services);
  // Every response body of the suite is kept (the test client is patched while the suite runs).
  const bodies: string[] = [];
  const request = ApiClient.prototype.request;
  ApiClient.prototype.request = async function (this: ApiClient, ...args: Parameters<typeof request>) {
    const res = await request.apply(this, args);
    bodies.push(res.text);
    return res;
  } as typeof request;
  const setPlan = async (fx: ProjectFixture, plan: 'free' | 'pro') => {
    await app.services.repos.developers.setPlan(fx.developer.id, plan);
  };
  return {
    provider,
    app,
    setPlan,
    async project(plan = 'free') {
      const fx = await createProjectFixture(app.services);
      if (plan === 'pro') await setPlan(fx, 'pro');
      await createCollectionFixture(app.services, fx.project.id, {
        name: 'orders',
        mode: 'schema',
        fields: [
          { name: 'status', type: 'String', required: true },
          { name: 'total', type: 'Number' },
          { name: 'paidAt', type: 'Date' },
          { name: 'customer', type: 'Ref', ref: 'customers' },
        ],
      });
      await createCollectionFixture(app.services, fx.project.id, {
        name: 'customers',
        fields: [{ name: 'name', type: 'String' }],
      });
      return { fx, dash: app.client.with({ cookie: fx.cookie }) };
    },
    expectNoKeyLogged() {
      expect(app.logLines.length, 'the log was captured').to.be.greaterThan(0);
      for (const line of app.logLines) {
        for (const key of ALL_KEYS) expect(line, 'a log line').not.to.include(key);
      }
      expect(bodies.length, 'responses were captured').to.be.greaterThan(0);
      for (const body of bodies) {
        for (const key of ALL_KEYS) expect(body, 'a response body').not.to.include(key);
      }
    },
    async close() {
      ApiClient.prototype.request = request;
      await app.close();
      await provider.close();
    },
  };
}
