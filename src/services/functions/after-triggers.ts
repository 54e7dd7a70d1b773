// The after-triggers (afterCreate, afterUpdate, afterDelete; docs/functions.md): asynchronous and
// at least once, through the webhook outbox. A change made through the data API writes one entry
// per enabled after-function of its collection beside its webhooks' (an intent before the change,
// confirmed after it), so a process that dies in between loses none; the worker claims them in
// the same turns as webhook deliveries, runs the function with the writer's rights one level
// deeper, and retries a failed run on the webhook schedule. The event's id (`evt_<key>`) is the
// same on every attempt, for the function's own de-duplication. A change made by a function
// already MAX_FUNCTION_DEPTH deep queues none, so an afterCreate that writes its own collection
// stops there. A client's change with the publishable key is charged to its end user's budget of
// the day (functionInvocationsPerCallerPerDay) for each function it queues, before it is written.
import type { DeliveryRunAs, StoredDelivery } from '../../db/webhook-deliveries.js';
import { ApiError } from '../../http/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { EventIntent, EventName } from '../events.js';
import type { PlanLimits, Project } from '../types.js';
import type { PostResult } from '../webhooks/http.js';
import { hookKey, type HookTable } from './hooks.js';
import { MAX_FUNCTION_DEPTH } from './host.js';
import type { FunctionInvoker, RunnableFunction } from './invoke.js';
import type { TriggerType } from './types.js';

/** The after-trigger each document event runs (a restore is an update: it ran beforeUpdate). */
const AFTER: Partial<Record<EventName, TriggerType>> = {
  'document.created': 'afterCreate',
  'document.updated': 'afterUpdate',
  'document.restored': 'afterUpdate',
  'document.deleted': 'afterDelete',
};

export interface AfterTriggersDeps {
  table: (projectId: string) => Promise<HookTable>;
  invoker: FunctionInvoker;
  projectById: (projectId: string) => Promise<Project | null | undefined>;
  limitsOf: (project: Project) => Promise<PlanLimits>;
  log: Logger;
}

/** A delivery's outcome in the outbox's terms: no HTTP status, an error or none. */
const result = (error: string | null, durationMs: number, retryable = true): PostResult => ({
  status: null,
  durationMs,
  response: null,
  error,
  retryable,
});

export function afterTriggers({ table, invoker, projectById, limitsOf, log }: AfterTriggersDeps) {
  return {
    /**
     * The after-functions an announced change runs: none for a change without a data-API writer
     * (an import, a restore of a backup) or made by a function already MAX_FUNCTION_DEPTH deep.
     */
    async targets(intent: EventIntent): Promise<RunnableFunction[]> {
      const trigger = AFTER[intent.name];
      const { actor } = intent;
      if (!trigger || !actor || actor.depth >= MAX_FUNCTION_DEPTH) return [];
      const runs = (await table(intent.projectId))[hookKey(trigger, intent.collection)] ?? [];
      if (runs.length && actor.keyKind === 'publishable' && actor.depth === 0) {
        const project = await projectById(intent.projectId);
        if (project)
          await invoker.chargeAfter(
            project.id,
            { keyKind: actor.keyKind, userId: actor.userId, depth: actor.depth },
            await limitsOf(project),
            runs.length,
          );
      }
      return runs;
    },

    /** Runs one queued after-trigger; a failed run is retried on the outbox's schedule. */
    async deliver(delivery: StoredDelivery): Promise<PostResult> {
      const started = Date.now();
      const runAs: DeliveryRunAs = delivery.runAs ?? { keyKind: 'publishable', userId: null, depth: 0 };
      const project = await projectById(delivery.projectId);
      const fn = project && findFunction(await table(project.id), delivery.webhookId);
      if (!project || !fn) return result('function deleted or disabled', 0, false);
      if (!Object.values(AFTER).includes(fn.trigger.type))
        return result(`the function's active version is now a ${fn.trigger.type}`, 0, false);
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(delivery.body) as Record<string, unknown>;
      } catch {
        return result('the queued event is not readable', 0, false);
      }
      const event = {
        ...payload,
        id: String(payload.id),
        trigger: fn.trigger.type,
        projectId: project.id,
        caller: { key: runAs.keyKind, userId: runAs.userId },
      };
      try {
        const outcome = await invoker.invoke(fn, fn.trigger.type, event, await limitsOf(project), {
          keyKind: runAs.keyKind,
          userId: runAs.userId,
          project,
          depth: runAs.depth,
        });
        const error = outcome.status === 'ok' ? null : `${outcome.status}: ${outcome.error?.message ?? ''}`;
        return result(error, Date.now() - started);
      } catch (err) {
        // The project's runners are all busy (FUNCTION_CONCURRENCY): tried again later.
        if (!(err instanceof ApiError)) log.error({ err, functionId: fn.id }, 'after-trigger failed');
        return result(err instanceof ApiError ? err.message : 'the run failed', Date.now() - started);
      }
    },
  };
}

function findFunction(functions: HookTable, id: string): RunnableFunction | undefined {
  for (const list of Object.values(functions)) {
    const found = list.find((fn) => fn.id === id);
    if (found) return found;
  }
  return undefined;
}

export type AfterTriggers = ReturnType<typeof afterTriggers>;
