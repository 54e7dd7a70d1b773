// The synchronous hooks of the write paths (beforeCreate, beforeUpdate, beforeDelete): which hook a
// collection has comes from the project cache (no database round trip when none exists), the
// hook runs on its runtime, and its answer is read the same way for both runtimes: nothing (go on
// unchanged), `{ refuse: { status, code, message } }` (the client gets that status and
// `HOOK_<code>`), or a changed document (which the write path validates again like a client's).
// A timeout or failure refuses the request (policy `closed`: 504 HOOK_TIMEOUT, 503
// HOOK_UNAVAILABLE; the detail only to the secret key, else the invocation's id) or lets it go on
// unchanged (`open`), logged either way. A hook that was not run (a caller's or the project's
// quota spent, an open breaker, too many at once) is no failure: the invoker's refusal reaches
// the client under either policy, so nobody can switch an `open` hook's check off by spending
// the quota.
import { ApiError } from '../../http/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { PlanLimits, Project } from '../types.js';
import type { FunctionInvoker, InvocationCaller, RecordedOutcome, RunnableFunction } from './invoke.js';
import { eventId } from './invoke.js';
import type { TriggerType } from './types.js';
import { isObject, refusalOf } from './answers.js';

/** Enabled functions of a project by `<trigger>:<collection>` (collection empty when none). */
export type HookTable = Record<string, RunnableFunction[]>;

export const hookKey = (trigger: TriggerType, collection = '') => `${trigger}:${collection}`;

export interface HookCall {
  project: Project;
  caller: InvocationCaller;
  trigger: TriggerType;
  collection?: string;
  /** The event without its id and trigger, which are added here. */
  event: Record<string, unknown>;
  /** Auth endpoints have no 504: a timeout there is a 503 HOOK_TIMEOUT. */
  timeoutStatus?: 503 | 504;
}

export interface HooksDeps {
  table: (projectId: string) => Promise<HookTable>;
  invoker: FunctionInvoker;
  limitsOf: (project: Project) => Promise<PlanLimits>;
  log: Logger;
}

export function syncHooks({ table, invoker, limitsOf, log }: HooksDeps) {
  function failed(fn: RunnableFunction, outcome: RecordedOutcome, call: HookCall): undefined {
    const message = outcome.error?.message ?? outcome.status;
    if (fn.failurePolicy === 'open') {
      log.warn({ functionId: fn.id, status: outcome.status, message }, 'hook failed; going on (policy open)');
      return undefined;
    }
    const { invocationId } = outcome;
    const fields = invocationId ? { invocationId } : undefined;
    if (outcome.status === 'timeout')
      throw new ApiError(
        call.timeoutStatus ?? 504,
        'HOOK_TIMEOUT',
        `The ${fn.trigger.type} hook did not answer in time`,
        undefined,
        undefined,
        fields,
      );
    const detail =
      call.caller.keyKind === 'secret'
        ? `: ${message}`
        : `; the function's invocation log has the detail (invocation ${invocationId})`;
    throw new ApiError(
      503,
      'HOOK_UNAVAILABLE',
      `The ${fn.trigger.type} hook failed${detail}`,
      undefined,
      undefined,
      fields,
    );
  }

  return {
    /** The hook for a trigger, from the cached table (a plain lookup when the project has none). */
    async find(projectId: string, trigger: TriggerType, collection?: string) {
      return (await table(projectId))[hookKey(trigger, collection)]?.[0];
    },

    /**
     * Runs the hook: its answer's value when it answered (undefined for "unchanged"), a thrown
     * ApiError when it refused or failed under policy closed, undefined when it failed under open.
     */
    async run(fn: RunnableFunction, call: HookCall): Promise<Record<string, unknown> | undefined> {
      const event = {
        id: eventId(),
        trigger: call.trigger,
        projectId: call.project.id,
        ...(call.collection ? { collection: call.collection } : {}),
        caller: { key: call.caller.keyKind, userId: call.caller.userId },
        ...call.event,
      };
      const outcome = await invoker.invoke(
        fn,
        call.trigger,
        event,
        await limitsOf(call.project),
        call.caller,
      );
      if (outcome.status !== 'ok') return failed(fn, outcome, call);
      const refusal = refusalOf(outcome.value);
      if (refusal) throw new ApiError(refusal.status, `HOOK_${refusal.code}`, refusal.message);
      if (outcome.value === undefined || outcome.value === null) return undefined;
      if (!isObject(outcome.value))
        return failed(
          fn,
          { ...outcome, status: 'error', error: { message: 'the answer is not a JSON object' } },
          call,
        );
      return outcome.value;
    },
  };
}

export type SyncHooks = ReturnType<typeof syncHooks>;
