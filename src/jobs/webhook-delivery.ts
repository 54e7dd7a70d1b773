// Worker loop of webhook delivery: claims due outbox entries and delivers them, WEBHOOK_LANES_PER_WORKER at a time,
// polling every WEBHOOK_POLL_INTERVAL_MS when nothing is due; an idle lane settles intents left
// unconfirmed. Any number of workers may run it: claims are leased, so no attempt is made twice at
// once, and a dead worker's claim expires.
import type { Logger } from '../lib/logger.js';

export interface Deliverer {
  deliverNext(): Promise<boolean>;
  settleIntent(): Promise<boolean>;
}

export interface Loop {
  stop(): Promise<void>;
}

export function startWebhookDelivery(
  deliverer: Deliverer,
  log: Logger,
  pollIntervalMs: number,
  concurrency: number,
): Loop {
  let stopping = false;
  const sleepers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  async function lane(): Promise<void> {
    while (!stopping) {
      let delivered = false;
      try {
        delivered = (await deliverer.deliverNext()) || (await deliverer.settleIntent());
      } catch (err) {
        log.error({ err }, 'webhook delivery failed');
      }
      if (!delivered && !stopping) await sleep(pollIntervalMs);
    }
  }

  const lanes = Array.from({ length: concurrency }, () => lane());
  return {
    async stop() {
      stopping = true;
      for (const wake of [...sleepers]) wake();
      await Promise.all(lanes);
    },
  };
}
