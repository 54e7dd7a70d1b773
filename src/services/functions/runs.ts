// Looking at runs: the invocation log of a function, and a test run of its active version
// against a sample event that writes nothing (no document change, no log entry).
import { badRequest, notFound } from '../../http/errors.js';
import type { FunctionsRepo } from '../../db/functions.js';
import type { FunctionInvocationsRepo, InvocationFilter } from '../../db/function-invocations.js';
import type { PlanLimits, Project } from '../types.js';
import { refusalOf } from './answers.js';
import { eventId, type FunctionInvoker, type RunnableFunction } from './invoke.js';
import { activeVersionOf } from './manage.js';
import { MAX_FUNCTION_DEPTH } from './host.js';
import type { StoredFunction } from './types.js';

export const runnable = (fn: StoredFunction): RunnableFunction => ({
  ...activeVersionOf(fn),
  id: fn.id,
  projectId: fn.projectId,
  name: fn.name,
  enabled: fn.enabled,
  signingSecretEnc: fn.signingSecretEnc,
  envEnc: fn.envEnc,
  envRetiredEnc: fn.envRetiredEnc,
  rateLimitPerMinute: fn.rateLimitPerMinute,
});

export function functionRuns(deps: {
  repo: FunctionsRepo;
  invocations: FunctionInvocationsRepo;
  invoker: FunctionInvoker;
  limitsOf: (project: Project) => Promise<PlanLimits>;
}) {
  async function require(project: Project, id: string): Promise<StoredFunction> {
    const fn = await deps.repo.find(project.id, id);
    if (!fn) throw notFound('Function not found', 'FUNCTION_NOT_FOUND');
    return fn;
  }

  return {
    async invocations(
      project: Project,
      id: string,
      page: number,
      limit: number,
      filter: InvocationFilter = {},
    ) {
      await require(project, id);
      if (filter.since && filter.until && filter.since >= filter.until)
        throw badRequest('`since` must be before `until`');
      // Entries of this process's calls that are still buffered are written first.
      await deps.invoker.flushLog();
      const { items, hasMore } = await deps.invocations.list(project.id, id, page, limit, filter);
      return {
        invocations: items.map((entry) => ({
          id: entry.id,
          trigger: entry.trigger,
          version: entry.version,
          status: entry.status,
          durationMs: entry.durationMs,
          error: entry.error,
          refusal: entry.refusal ?? null,
          request: entry.request ?? null,
          logs: entry.logs,
          at: entry.at.toISOString(),
          expiresAt: entry.expiresAt.toISOString(),
        })),
        pagination: { page, limit, hasMore },
      };
    },

    /** Runs, failures and p50/p95 duration of the last hour and the last day. */
    async stats(project: Project, id: string, now = new Date()) {
      await require(project, id);
      await deps.invoker.flushLog();
      const ago = (ms: number) => new Date(now.getTime() - ms);
      const [lastHour, lastDay] = await Promise.all([
        deps.invocations.stats(project.id, id, ago(3600_000), now),
        deps.invocations.stats(project.id, id, ago(24 * 3600_000), now),
      ]);
      return { lastHour, lastDay, at: now.toISOString() };
    },

    async test(project: Project, id: string, sample: Record<string, unknown>) {
      const fn = runnable(await require(project, id));
      const event = { ...sample, id: eventId(), trigger: fn.trigger.type, projectId: project.id, test: true };
      const outcome = await deps.invoker.invoke(
        fn,
        fn.trigger.type,
        event,
        await deps.limitsOf(project),
        // As deep as hosted code may go: its ctx.db refuses writes (host.ts), so a test writes nothing.
        { keyKind: null, userId: null, project, depth: MAX_FUNCTION_DEPTH },
        false,
      );
      const refusal = outcome.status === 'ok' ? (refusalOf(outcome.value) ?? null) : null;
      return {
        status: refusal ? ('refused' as const) : outcome.status,
        durationMs: outcome.durationMs,
        value: outcome.value ?? null,
        refusal,
        error: outcome.error ?? null,
        logs: outcome.logs,
      };
    },
  };
}
