// Delivers one claimed outbox entry: signs it with the webhook's current secret, posts it, logs
// the attempt and schedules what follows (success; a retry after the next delay of the schedule,
// with ±10 % jitter; or failure once the schedule is used up or the answer is not retryable). Claims
// take projects in turn, each at most WEBHOOK_LANES_PER_PROJECT at once and each target host at
// most WEBHOOK_LANES_PER_HOST, and the time a project holds a lane is charged to its turn
// (lanes.ts), so slow endpoints hold only their share of the lanes. A webhook whose deliveries
// keep failing is paused. An entry for a function's after-trigger is run by the functions service
// (functions/after-triggers.ts) in the same turns, and retried on the same schedule.
import type { WebhookSettings } from '../../config.js';
import type { Logger } from '../../lib/logger.js';
import type {
  Claim,
  DeliveryAttempt,
  DeliveryStatus,
  WebhookDeliveriesRepo,
} from '../../db/webhook-deliveries.js';
import type { StoredWebhook, WebhooksRepo } from '../../db/webhooks.js';
import type { HostAllowance } from '../../lib/restricted-hosts.js';
import type { OwnOrigins } from '../../lib/own-origins.js';
import { postWebhook, type PostResult } from './http.js';
import { laneAccounts } from './lanes.js';
import { signedHeaders } from './signing.js';
import type { AfterTriggers } from '../functions/after-triggers.js';
import { counted } from '../../lib/words.js';

export interface DeliveryOptions {
  settings: WebhookSettings;
  /** What targets may reach besides public hosts (targetAllowance). */
  allowPrivateHosts: HostAllowance;
  /** The platform's own origins, never a target (src/lib/own-origins.ts). */
  own?: OwnOrigins;
  openSecret: (sealed: string) => string;
  random?: () => number;
  now?: () => Date;
  /** Told of every request sent to an endpoint, whatever its answer (usage accounting). */
  onAttempt?: (projectId: string) => void;
  /** Runs the after-triggers queued beside the webhooks (absent: they fail, not retried). */
  functions?: Pick<AfterTriggers, 'deliver'>;
}

export const messageId = (deliveryId: string) => `msg_${deliveryId}`;

export function webhookDeliverer(
  repo: WebhookDeliveriesRepo,
  webhooks: WebhooksRepo,
  log: Logger,
  {
    settings,
    allowPrivateHosts,
    own,
    openSecret,
    random = Math.random,
    now = () => new Date(),
    onAttempt,
    functions,
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

  /** The project served last by this process: the next claim starts after it. */
  let lastProject: string | undefined;
  let claiming: Promise<unknown> = Promise.resolve();
  const lanes = laneAccounts(settings);

  /** A claim and the lane it takes (freed, and its time charged, by the returned function). */
  async function claimTurn(): Promise<{ claim: Claim; free: () => void } | undefined> {
    const at = now();
    const busy = await repo.busy(at, { project: settings.lanesPerProject, host: settings.lanesPerHost });
    const slow = lanes.skipped();
    const claim = await repo.claim(at, settings.leaseMs, {
      after: lastProject,
      skip: slow.length ? [...new Set([...busy.projects, ...slow])] : busy.projects,
      skipHosts: busy.hosts,
    });
    if (!claim) return undefined;
    lastProject = claim.delivery.projectId;
    // Taken before the next claim of this process runs, so that one sees the lane in use.
    return { claim, free: lanes.take(claim.delivery.projectId) };
  }

  /** Pauses a webhook whose deliveries keep failing (a notice is logged). */
  async function countFailure(webhook: StoredWebhook, delivery: Claim['delivery'], at: Date) {
    const since = delivery.attempts[0]?.at ?? at;
    const after = await webhooks.recordFailure(webhook.projectId, webhook.id, since);
    if (!after?.enabled) return;
    const failingMs = at.getTime() - (after.failingSince ?? at).getTime();
    let reason: string | undefined;
    if (after.consecutiveFailures >= settings.pauseAfterFailures)
      reason = `paused after ${after.consecutiveFailures} deliveries in a row failed`;
    else if (failingMs >= settings.pauseAfterMs)
      reason = `paused after failing for ${counted(Math.round(failingMs / 3_600_000), 'hour')}`;
    if (reason && (await webhooks.pause(webhook.projectId, webhook.id, reason, at)))
      log.warn(
        { projectId: webhook.projectId, webhookId: webhook.id, failures: after.consecutiveFailures },
        `webhook ${reason}`,
      );
  }

  return {
    /** Claims the next due delivery and delivers it; false when none was due. */
    async deliverNext(): Promise<boolean> {
      // This process's lanes claim one at a time, so each sees the leases the others just took.
      const claimed = claiming.then(claimTurn);
      claiming = claimed.then(
        () => undefined,
        () => undefined,
      );
      const taken = await claimed;
      if (!taken) return false;
      try {
        await deliver(taken.claim);
      } finally {
        taken.free();
      }
      return true;
    },
  };

  async function deliver(claim: Claim): Promise<void> {
    const { delivery } = claim;
    if (delivery.target === 'function') {
      const at = now();
      const result: PostResult = functions
        ? await functions.deliver(delivery)
        : { status: null, durationMs: 0, response: null, error: 'no functions here', retryable: false };
      await finish(claim, at, result);
      return;
    }
    const webhook = await webhooks.findById(delivery.webhookId);
    const at = now();
    let result: PostResult;
    if (!webhook) {
      result = { status: null, durationMs: 0, response: null, error: 'webhook deleted', retryable: false };
    } else if (!webhook.enabled && delivery.event !== 'webhook.ping') {
      const error = webhook.pausedAt ? 'webhook paused' : 'webhook disabled';
      result = { status: null, durationMs: 0, response: null, error, retryable: false };
    } else {
      const headers = signedHeaders(openSecret(webhook.secretEnc), messageId(delivery.id), delivery.body, at);
      result = await postWebhook(webhook.url, headers, delivery.body, {
        timeoutMs: settings.timeoutMs,
        allowPrivate: allowPrivateHosts,
        allowHttp: settings.allowHttp,
        own,
      });
      onAttempt?.(delivery.projectId);
    }
    const next = await finish(claim, at, result);
    // Only answers of a live endpoint count towards pausing it (pings included: they are tries).
    if (!next || !webhook || (!webhook.enabled && delivery.event !== 'webhook.ping')) return;
    if (next.status === 'succeeded' && webhook.consecutiveFailures > 0)
      await webhooks.recordSuccess(webhook.projectId, webhook.id);
    else if (next.status === 'failed') await countFailure(webhook, delivery, at);
  }

  /** Records the attempt and what follows it; undefined when the lease was lost meanwhile. */
  async function finish(claim: Claim, at: Date, result: PostResult) {
    const { delivery } = claim;
    const attempt: DeliveryAttempt = {
      number: delivery.attempts.length + 1,
      at,
      status: result.status,
      durationMs: result.durationMs,
      response: result.response,
      error: result.error,
    };
    const next = nextStep(result, delivery.round);
    const retain =
      next.status === 'succeeded'
        ? settings.retainSucceededMs
        : next.status === 'failed'
          ? settings.retainFailedMs
          : 0;
    const expiresAt = retain ? new Date(at.getTime() + retain) : null;
    const kept = await repo.record(claim, attempt, { ...next, expiresAt });
    if (!kept) {
      log.warn({ deliveryId: delivery.id }, 'webhook delivery lease lost before its attempt was recorded');
      return undefined;
    }
    return next;
  }
}

export type WebhookDeliverer = ReturnType<typeof webhookDeliverer>;
