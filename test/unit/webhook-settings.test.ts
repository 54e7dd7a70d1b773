// The webhook outbox's bounds as settings: their documented defaults, durations with units, and
// the refusal of a duration that is not one positive value.
import { expect } from 'chai';
import { loadConfig, ConfigError } from '../../src/config.js';

const base = {
  MONGODB_URI: 'mongodb://127.0.0.1:27017',
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  INTERNAL_API_SECRET: 'x'.repeat(43),
};
const DAY = 86_400_000;

describe('config: webhook outbox bounds', () => {
  it('has the documented defaults', () => {
    expect(loadConfig(base).webhooks).to.deep.include({
      lanesPerWorker: 4,
      lanesPerProject: 2,
      lanesPerHost: 4,
      slowDeliveryMs: 2000,
      manualPerMinute: 30,
      maxPendingPerProject: 1000,
      maxPayloadBytes: 65_536,
      retainSucceededMs: 7 * DAY,
      retainFailedMs: 30 * DAY,
      pauseAfterFailures: 20,
      pauseAfterMs: 3 * DAY,
      intentGraceMs: 60_000,
    });
  });

  it('reads durations with units and refuses lists, zero and nonsense', () => {
    const webhooks = loadConfig({
      ...base,
      WEBHOOK_RETAIN_SUCCEEDED: '36h',
      WEBHOOK_INTENT_GRACE: '90s',
    }).webhooks;
    expect(webhooks.retainSucceededMs).to.equal(36 * 3_600_000);
    expect(webhooks.intentGraceMs).to.equal(90_000);
    for (const value of ['1d,2d', '0s', 'soon']) {
      let problems: string[] = [];
      try {
        loadConfig({ ...base, WEBHOOK_RETAIN_FAILED: value });
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        problems = err.problems;
      }
      expect(problems.join('\n'), value).to.match(/WEBHOOK_RETAIN_FAILED must be/);
    }
  });
});
