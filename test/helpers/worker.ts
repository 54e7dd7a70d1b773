// Runs the worker role's webhook delivery loop on the test stack, in this process, against a
// suite's platform database, with the settings given (a short retry schedule, a short lease).
import { testEnv } from './env.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { createDeps, closeDeps } from '../../src/deps.js';
import { createServices } from '../../src/services/index.js';
import { startWebhookDelivery } from '../../src/jobs/webhook-delivery.js';

export const FAST_WEBHOOKS = {
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
  WEBHOOK_POLL_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LEASE_MS: '3000',
};

export async function startTestWorker(platformDb: string, overrides: Record<string, string> = {}) {
  const config = loadConfig({
    ...testEnv,
    NODE_ENV: 'test',
    PLATFORM_DB: platformDb,
    ...FAST_WEBHOOKS,
    ...overrides,
  });
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const deps = await createDeps(config, log);
  const services = createServices(deps);
  const loop = startWebhookDelivery(
    services.webhooks.deliverer,
    log,
    config.webhooks.pollIntervalMs,
    config.webhooks.lanesPerWorker,
  );
  return {
    async stop() {
      await loop.stop();
      services.planSettings.stop();
      await services.hosted.close();
      await closeDeps(deps);
    },
  };
}
