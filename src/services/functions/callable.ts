// Callable functions: `POST /api/functions/{name}` on the public API. The function comes from the
// project's cached table; its `access` says who may call it; the body (64 KiB at most) is the
// event's `body`; the value answered (1 MiB at most from hosted code) is the response's `data`.
// A failure tells a caller without the secret key only that it failed and the invocation's id:
// what went wrong (an endpoint's address or answer, a stack) stays in the invocation log.
import type { Cache } from '../../cache/index.js';
import {
  ApiError,
  forbidden,
  notFound,
  payloadTooLarge,
  tooManyRequests,
  unauthorized,
} from '../../http/errors.js';
import type { RequestContext } from '../context.js';
import { callerOf } from '../data/access.js';
import type { PlanLimits, Project } from '../types.js';
import { refusalOf } from './answers.js';
import { hookKey, type HookTable } from './hooks.js';
import { eventId, type FunctionInvoker } from './invoke.js';

export const MAX_CALL_BODY_BYTES = 64 * 1024;
export const MAX_CALL_ANSWER_BYTES = 1024 * 1024;

export function callableFunctions(deps: {
  table: (projectId: string) => Promise<HookTable>;
  invoker: FunctionInvoker;
  cache: Pick<Cache, 'consume'>;
  limitsOf: (project: Project) => Promise<PlanLimits>;
}) {
  return {
    async call(ctx: RequestContext, name: string, body: unknown): Promise<unknown> {
      const caller = callerOf(ctx);
      const { project } = caller;
      const fn = (await deps.table(project.id))[hookKey('callable')]?.find((f) => f.name === name);
      if (!fn) throw notFound(`No callable function named ${name}`, 'FUNCTION_NOT_FOUND');
      if (fn.trigger.access === 'secret' && caller.keyKind !== 'secret')
        throw forbidden('This function requires the secret key', 'SECRET_KEY_REQUIRED');
      if (fn.trigger.access === 'user' && !caller.userId)
        throw unauthorized("This function requires an end user's Bearer token", 'MISSING_TOKEN');
      if (fn.rateLimitPerMinute) {
        const bucket = { key: `fnrl:${fn.id}`, limit: fn.rateLimitPerMinute, periodMs: 60_000 };
        const { allowed, states } = await deps.cache.consume([bucket]);
        if (!allowed)
          throw tooManyRequests(
            Math.max(1, Math.ceil(states[0]!.retryAfterMs / 1000)),
            `The function ${name} takes ${fn.rateLimitPerMinute} calls a minute`,
          );
      }
      const text = JSON.stringify(body ?? null);
      if (Buffer.byteLength(text) > MAX_CALL_BODY_BYTES)
        throw payloadTooLarge(`The body of a function call is limited to ${MAX_CALL_BODY_BYTES} bytes`);
      const userId = caller.userId ?? null;
      const event = {
        id: eventId(),
        trigger: 'callable',
        projectId: project.id,
        name,
        body: body ?? null,
        caller: { key: caller.keyKind, userId },
      };
      const outcome = await deps.invoker.invoke(
        fn,
        'callable',
        event,
        await deps.limitsOf(project),
        {
          keyKind: caller.keyKind,
          userId,
          project,
          depth: caller.functionDepth ?? 0,
          ip: ctx.ip,
          request: ctx.request,
        },
        true,
        { maxResultBytes: MAX_CALL_ANSWER_BYTES },
      );
      const invocation = outcome.invocationId ? { invocationId: outcome.invocationId } : undefined;
      if (outcome.status === 'timeout')
        throw new ApiError(
          504,
          'FUNCTION_TIMEOUT',
          `The function ${name} did not answer in time`,
          undefined,
          undefined,
          invocation,
        );
      if (outcome.status !== 'ok') {
        const detail =
          caller.keyKind === 'secret'
            ? `: ${outcome.error?.message ?? outcome.status}`
            : `; the function's invocation log has the detail (invocation ${outcome.invocationId})`;
        throw new ApiError(
          502,
          'FUNCTION_FAILED',
          `The function ${name} failed${detail}`,
          undefined,
          undefined,
          invocation,
        );
      }
      const refusal = refusalOf(outcome.value);
      if (refusal) throw new ApiError(refusal.status, `HOOK_${refusal.code}`, refusal.message);
      return outcome.value ?? null;
    },
  };
}
