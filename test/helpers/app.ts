// Starts one HTTP role of the real app on an ephemeral port, against the real test stack, with
// its own platform database (dropped on close) so suites never see each other's data.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { testEnv } from './env.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { createDeps, closeDeps, type Deps } from '../../src/deps.js';
import { createServices, type Services } from '../../src/services/index.js';
import { createApp, type HttpRole } from '../../src/app.js';
import { ApiClient } from './client.js';

export interface TestApp {
  readonly url: string;
  readonly client: ApiClient;
  readonly deps: Deps;
  readonly services: Services;
  close(): Promise<void>;
}

export const suiteDatabase = (suite: string) =>
  `t_${suite.replace(/\W/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`;

export async function startTestApp(
  role: HttpRole,
  suite: string,
  overrides: Record<string, string | undefined> = {},
  /** A fixed port, for pages whose origin must be known before start (PUBLIC_URL, DASHBOARD_URL). */
  port = 0,
): Promise<TestApp> {
  const platformDb = suiteDatabase(suite);
  const config = loadConfig({ ...testEnv, NODE_ENV: 'test', PLATFORM_DB: platformDb, ...overrides });
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const deps = await createDeps(config, log);
  const services = createServices(deps);
  const server: Server = createApp(role, deps, services).listen(port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    client: new ApiClient(url, role),
    deps,
    services,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await services.quota.stop();
      services.planSettings.stop();
      await services.requestLog.close();
      await services.functions.close();
      await services.hosted.close();
      await deps.db.platform.dropDatabase().catch(() => undefined);
      await closeDeps(deps);
    },
  };
}

/** Both HTTP roles over one platform database, as in a deployment. */
export async function startTestApps(suite: string, overrides: Record<string, string | undefined> = {}) {
  const shared = { PLATFORM_DB: suiteDatabase(suite), ...overrides };
  const publicApp = await startTestApp('public', suite, shared);
  // The dashboard reaches this public role for its internal calls (external database checks).
  const dashboard = await startTestApp('dashboard', suite, { PUBLIC_INTERNAL_URL: publicApp.url, ...shared });
  return {
    public: publicApp,
    dashboard,
    async close() {
      await dashboard.close();
      await publicApp.close();
    },
  };
}
