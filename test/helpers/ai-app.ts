// The dashboard role for the AI tests, pointed at the test provider, with its structured log
// captured line by line (to check that no key is ever logged).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { testEnv } from './env.js';
import { suiteDatabase } from './app.js';
import { ApiClient } from './client.js';
import { loadConfig } from '../../src/config.js';
import { createDeps, closeDeps, type Deps } from '../../src/deps.js';
import { createServices, type Services } from '../../src/services/index.js';
import { createApp } from '../../src/app.js';
import type { AiProviderServer } from './ai-provider.js';

export const PLATFORM_KEY = 'gsk_platform_0123456789abcdefghij';

export interface AiTestApp {
  readonly client: ApiClient;
  readonly deps: Deps;
  readonly services: Services;
  /** Every log line written so far, as text. */
  readonly logLines: string[];
  close(): Promise<void>;
}

export async function startAiApp(
  suite: string,
  provider: AiProviderServer,
  overrides: Record<string, string | undefined> = {},
): Promise<AiTestApp> {
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({
    ...testEnv,
    NODE_ENV: 'test',
    PLATFORM_DB: suiteDatabase(suite),
    AI_BASE_URL: provider.baseUrl,
    AI_PLATFORM_KEY: PLATFORM_KEY,
    AI_MODEL: 'test-model',
    // The per-minute limits have their own suite (ai-limits.test.ts); the others run many requests.
    AI_PLATFORM_REQUESTS_PER_MINUTE: '100000',
    AI_REQUESTS_PER_MINUTE: '100000',
    ...overrides,
  });
  const deps = await createDeps(config, pino({ level: 'debug' }, sink));
  const services = createServices(deps);
  const server: Server = createApp('dashboard', deps, services).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    client: new ApiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'dashboard'),
    deps,
    services,
    logLines,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      services.planSettings.stop();
      await deps.db.platform.dropDatabase().catch(() => undefined);
      await closeDeps(deps);
    },
  };
}
