// Delivers one claimed outbox entry: signs it with the webhook's current secret, posts it, logs
// the attempt and schedules what follows (success; a retry after the next delay of the schedule,
// with ±10 % jitter; or failure once the schedule is used up or the answer is not retryable).
import type { WebhookSettings } from '../../config.js';
import type { Logger } from '../../lib/logger.js';
import type {
  Claim,
  DeliveryAttempt,
  DeliveryStatus,
  WebhookDeliveriesRepo,
} from '../../db/webhook-deliveries.js';
import type { WebhooksRepo } from '../../db/webhooks.js';
import { postWebhook, type PostResult } from './http.js';
import { signedHeaders } from './signing.js';

export interface DeliveryOptions {
  settings: WebhookSettings;
  allowPrivateHosts: boolean;
  openSecret: (sealed: string) => string;
  random?: () => number;
  now?: () => Date;
  /** Told of every request sent to an endpoint, whatever its answer (usage accounting). */
  onAttempt?: (projectId: string) => void;
}

export const messageId = (deliveryId: string) => `msg_${deliveryId}`;

export function webhookDeliverer(
  repo: WebhookDeliveriesRepo,
  webhooks: WebhooksRepo,
  log: Logger,
  {
    settings,
    allowPrivateHosts,
    openSecret,
    random = Math.random,
    now = () => new Date(),
    onAttempt,
  }: DeliveryOptions,
) {
  function nextStep(
    result: PostResult,
    round: number,
  ): { status: DeliveryStatus; round: number; nextAttemptAt: Date | null } {
    if (result.error === null) return { status: 'succeeded', round, nextAttemptAt: null };
    const delay = settings.retryScheduleMs[round];
    if (!result.retryable || delay === undefined)
      return { status: 'failed', round: round + 1, nextAttemptAt: null };
    const jittered = Math.round(delay * (0.9 + random() * 0.2));
    return { status: 'pending', round: round + 1, nextAttemptAt: new Date(now().getTime() + jittered) };
  }

  return {
    /** Claims the next due delivery and delivers it; false when none was due. */
    async deliverNext(): Promise<boolean> {
      const claim = await repo.claim(now(), settings.leaseMs);
      if (!claim) return false;
      await deliver(claim);
      return true;
    },
  };

  async function deliver(claim: Claim): Promise<void> {
    const { delivery } = claim;
    const webhook = await webhooks.findById(delivery.webhookId);
    const at = now();
    let result: PostResult;
    if (!webhook) {
      result = { status: null, durationMs: 0, response: null, error: 'webhook deleted', retryable: false };
    } else if (!webhook.enabled && delivery.event !== 'webhook.ping') {
      result = { status: null, durationMs: 0, response: null, error: 'webhook disabled', retryable: false };
    } else {
      const headers = signedHeaders(openSecret(webhook.secretEnc), messageId(delivery.id), delivery.body, at);
      result = await postWebhook(webhook.url, headers, delivery.body, {
        timeoutMs: settings.timeoutMs,
        allowPrivate: allowPrivateHosts,
        allowHttp: settings.allowHttp,
      });
      onAttempt?.(delivery.projectId);
    }
    const attempt: DeliveryAttempt = {
      number: delivery.attempts.length + 1,
      at,
      status: result.status,
      durationMs: result.durationMs,
      response: result.response,
      error: result.error,
    };
    const kept = await repo.record(claim, attempt, nextStep(result, delivery.round));
    if (!kept)
      log.warn({ deliveryId: delivery.id }, 'webhook delivery lease lost before its attempt was recorded');
  }
}

export type WebhookDeliverer = ReturnType<typeof webhookDeliverer>;
