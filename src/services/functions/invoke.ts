// Runs one hook or function on its runtime with the project's limits: the budget of one caller of
// the publishable key per day (a client IP, and an end user when signed in; GCRA buckets in the
// shared cache, so one caller cannot spend the project's month), the invocations per month
// (counted in the shared cache in batches, month-allowance.ts; warnings at 80 % and 100 %,
// quota-warnings.ts), the in-flight cap per project
// (across every process for HTTP hooks; in this process for hosted code, whose runners are this
// process's own), the HTTP hook's circuit breaker, the deadline, and one entry of the invocation
// log (status, duration, error, log lines; never the request body), written in batches
// (invocation-log.ts). A spent budget, a spent month, an open breaker or a full project are not
// outcomes of the function: they are thrown (answers.ts), so no failure policy can skip a hook.
import { randomBytes } from 'node:crypto';
import type { Cache, RateBucket } from '../../cache/index.js';
import type { FunctionInvocationsRepo } from '../../db/function-invocations.js';
import type { Logger } from '../../lib/logger.js';
import type { PlanLimits, Project } from '../types.js';
import type { HookBreakers } from './breaker.js';
import type { HttpRuntime } from './http-runtime.js';
import { MAX_ANSWER_BYTES } from './http-runtime.js';
import type { HostedHost, HostedRuntime, InvocationLimits, InvocationOutcome } from './runtime-types.js';
import type { ActiveFunction, TriggerType } from './types.js';
import { circuitOpen, functionConcurrency, NOT_RUN_CODES, quotaExhausted, refusalOf } from './answers.js';
import { ApiError } from '../../http/errors.js';
import { clientIpKey } from '../../lib/client-ip.js';
import { UNLIMITED } from '../../lib/plans.js';
import { invocationLog, requestOf } from './invocation-log.js';
import { MAX_FUNCTION_DEPTH } from './host.js';
import { monthAllowance, secondsToNextMonth } from './month-allowance.js';
import { quotaWarnings, type QuotaWarning } from './quota-warnings.js';

/** A function as the invoker needs it: the active version and its sealed secrets. */
export interface RunnableFunction extends ActiveFunction {
  signingSecretEnc: string | null;
  envEnc: Record<string, string>;
  /** Sealed values removed or replaced in the env's last change: redacted from logs, never run with. */
  envRetiredEnc?: string[];
  rateLimitPerMinute?: number | null;
}

/** Who the invocation runs for, as hosted code's `ctx.db` acts (unless privileged). */
export interface InvocationCaller {
  keyKind: 'publishable' | 'secret' | null;
  userId: string | null;
  /** The project, when the trigger path has it at hand (the host loads it by id otherwise). */
  project?: Project;
  /** The functionDepth of the request whose write runs this function (absent: a client's). */
  depth?: number;
  /** The client's address, on a client's request: with the publishable key, the per-caller budget counts it. */
  ip?: string;
  /** The client's request that runs the function (the invocation log names it). */
  request?: { method: string; path: string };
}

/** An invocation's outcome and, when it was recorded, the id of its entry in the invocation log. */
export type RecordedOutcome = InvocationOutcome & { invocationId?: string };

/** The hosted runtime and the host it offers code, wired by the sandbox (src/sandbox). */
export interface HostedWiring {
  runtime: HostedRuntime;
  hostFor(fn: RunnableFunction, caller: InvocationCaller, limits: InvocationLimits): HostedHost;
}

export interface InvokeDeps {
  cache: Cache;
  http: HttpRuntime;
  breakers: HookBreakers;
  invocations: FunctionInvocationsRepo;
  open: (sealed: string) => string;
  log: Logger;
  hosted: () => HostedWiring | undefined;
  /** Usage: runs and their milliseconds per project (the Overview's figures). */
  count?: (projectId: string, metric: 'functionInvocations' | 'functionMs', n: number) => void;
  /** Tells the developer the month's invocations reached 80 % or 100 % (once each per month). */
  warn?: (warning: QuotaWarning) => Promise<void>;
}

const DAY_MS = 24 * 3600 * 1000;
/** The triggers a client's request runs and waits for: the per-caller budget counts them. */
const SYNCHRONOUS = new Set<TriggerType>([
  'callable',
  'beforeCreate',
  'beforeUpdate',
  'beforeDelete',
  'beforeSignUp',
  'tokenClaims',
]);

/** Unique per event and process (a random prefix per process, then a counter): no entropy per call. */
const EVENT_PREFIX = `evt_${randomBytes(9).toString('base64url')}`;
let events = 0;
export const eventId = () => `${EVENT_PREFIX}${(++events).toString(36)}`;
/**
 * The bounds of an invocation's captured log, whatever the plan says (the operator's override is
 * held to them by the API; a plan file may say "unlimited"): the runtime keeps the log in memory.
 */
export const LOG_BYTES_MIN = 1024;
export const LOG_BYTES_MAX = 1024 * 1024;

export const invocationLimits = (limits: PlanLimits): InvocationLimits => ({
  deadlineMs: limits.functionDeadlineMs,
  memoryBytes: limits.functionMemoryBytes,
  maxFetches: limits.functionFetchesPerInvocation,
  maxDbCalls: limits.functionDbCallsPerInvocation,
  maxResultBytes: MAX_ANSWER_BYTES,
  maxLogBytes: Math.min(Math.max(limits.functionLogBytesPerInvocation, LOG_BYTES_MIN), LOG_BYTES_MAX),
});

export function functionInvoker(deps: InvokeDeps) {
  const failure = (message: string): InvocationOutcome => ({
    status: 'error',
    error: { message },
    logs: [],
    durationMs: 0,
  });

  /**
   * A function record's env, opened once per record object: the hook table keeps one per version
   * while it is cached, so its calls share the opened values and one env object, whose revision
   * the pool then computes once (sandbox/redact.ts), instead of a decryption and a digest a call.
   */
  const opened = new WeakMap<RunnableFunction, { env: Record<string, string>; retired?: string[] }>();
  function openedEnv(fn: RunnableFunction) {
    let found = opened.get(fn);
    if (!found) {
      found = {
        env: Object.fromEntries(Object.entries(fn.envEnc).map(([name, sealed]) => [name, deps.open(sealed)])),
        retired: fn.envRetiredEnc?.map((sealed) => deps.open(sealed)),
      };
      opened.set(fn, found);
    }
    return found;
  }

  async function runtimeCall(
    fn: RunnableFunction,
    trigger: TriggerType,
    event: Record<string, unknown> & { id: string },
    limits: InvocationLimits,
    caller: InvocationCaller,
    reuse: boolean,
  ): Promise<InvocationOutcome> {
    if (fn.runtime.type === 'http') {
      if (!fn.signingSecretEnc) return failure('the hook has no signing secret');
      // A test run (not reused, not recorded) reaches the endpoint whatever the breaker says.
      const wait = reuse ? await deps.breakers.admit(fn.id) : 0;
      if (wait > 0) throw circuitOpen(wait);
      const outcome = await deps.http.call({
        url: fn.runtime.url,
        secret: deps.open(fn.signingSecretEnc),
        messageId: event.id,
        body: JSON.stringify(event),
        deadlineMs: limits.deadlineMs,
      });
      if (outcome.status === 'ok') await deps.breakers.succeeded(fn.id);
      else await deps.breakers.failed(fn.id);
      return outcome;
    }
    const hosted = deps.hosted();
    if (!hosted) return failure('the hosted JavaScript runtime is not available in this process');
    const { env, retired } = openedEnv(fn);
    return hosted.runtime.invoke({
      projectId: fn.projectId,
      functionId: fn.id,
      version: fn.version,
      codeHash: fn.codeHash ?? '',
      code: fn.runtime.code,
      trigger,
      event,
      env,
      retired,
      limits,
      host: hosted.hostFor(fn, caller, limits),
      reuse,
    });
  }

  const warnings = deps.warn && quotaWarnings(deps.cache, deps.warn, deps.log);
  const month = monthAllowance(deps.cache, deps.log, undefined, warnings?.observe);
  const entries = invocationLog({ write: (batch) => deps.invocations.addMany(batch), log: deps.log });
  /** Hosted calls in flight in this process, per project. */
  const hostedInFlight = new Map<string, number>();

  /**
   * Takes one of the project's in-flight slots: for an HTTP hook a lease in the shared cache
   * (across every process); for hosted code a count in this process, beside the runner pool's
   * own per-project share (a hosted call holds a runner of this process, nothing shared).
   * Resolves to the release, or undefined when the project is at its cap.
   */
  async function slot(fn: RunnableFunction, cap: number, ttlMs: number, id: string) {
    if (fn.runtime.type === 'javascript') {
      const held = hostedInFlight.get(fn.projectId) ?? 0;
      if (held >= cap) return undefined;
      hostedInFlight.set(fn.projectId, held + 1);
      return async () => {
        const left = (hostedInFlight.get(fn.projectId) ?? 1) - 1;
        if (left > 0) hostedInFlight.set(fn.projectId, left);
        else hostedInFlight.delete(fn.projectId);
      };
    }
    const slots = `fn-inflight:${fn.projectId}`;
    const member = id + randomBytes(4).toString('hex');
    if (!(await deps.cache.leases.acquire(slots, member, cap, ttlMs))) return undefined;
    return () => deps.cache.leases.release(slots, member);
  }

  /**
   * Charges one invocation to the caller's budget of the day (`functionInvocationsPerCallerPerDay`):
   * a client's request with the publishable key, by its client IP and its end user. Past it: 429
   * FUNCTION_QUOTA_EXHAUSTED, before the month is charged, logged nowhere but the request log.
   */
  async function chargeCaller(projectId: string, caller: InvocationCaller, limit: number) {
    // A function's own ctx.db writes (depth 1 and more) were counted with the call that ran it.
    if (caller.keyKind !== 'publishable' || (caller.depth ?? 0) > 0 || limit >= UNLIMITED) return;
    if (!caller.ip && !caller.userId) return;
    const message = `One caller may start ${limit} function invocations of this project a day; retry later`;
    if (!(limit > 0)) throw quotaExhausted(429, DAY_MS / 1000, message);
    const buckets: RateBucket[] = [];
    if (caller.ip)
      buckets.push({ key: `fncb:i:${projectId}:${clientIpKey(caller.ip)}`, limit, periodMs: DAY_MS });
    if (caller.userId) buckets.push({ key: `fncb:u:${projectId}:${caller.userId}`, limit, periodMs: DAY_MS });
    const { allowed, states } = await deps.cache.consume(buckets);
    if (!allowed) throw quotaExhausted(429, Math.max(...states.map((s) => s.retryAfterMs)) / 1000, message);
  }

  return {
    /**
     * Runs `fn` for `event`; every failure is an outcome (the caller applies the policy), except
     * what is not the function's doing (answers.ts), thrown: the caller's budget spent (429
     * FUNCTION_QUOTA_EXHAUSTED, not logged), the project's month spent (503
     * FUNCTION_QUOTA_EXHAUSTED), an open circuit breaker (503 FUNCTION_CIRCUIT_OPEN), the
     * project's calls at once past the plan's `functionConcurrency` or the runner pool's
     * per-project share (429 FUNCTION_CONCURRENCY); the last three are logged like a failed run.
     */
    async invoke(
      fn: RunnableFunction,
      trigger: TriggerType,
      event: Record<string, unknown> & { id: string },
      planLimits: PlanLimits,
      caller: InvocationCaller,
      record = true,
      overrides: Partial<InvocationLimits> = {},
    ): Promise<RecordedOutcome> {
      const limits = { ...invocationLimits(planLimits), ...overrides };
      const started = Date.now();
      // A client waits for these; an after-trigger or a schedule runs later, in the worker.
      if (record && SYNCHRONOUS.has(trigger))
        await chargeCaller(fn.projectId, caller, planLimits.functionInvocationsPerCallerPerDay);
      let outcome: InvocationOutcome;
      let release: (() => Promise<unknown>) | undefined;
      /** Not run (the month, the breaker, the project's calls at once): logged, then thrown. */
      let refused: ApiError | undefined;
      if (record && !(await month.admit(fn.projectId, planLimits.functionInvocationsPerMonth))) {
        refused = quotaExhausted(
          503,
          secondsToNextMonth(Date.now()),
          `The project's ${planLimits.functionInvocationsPerMonth} function invocations of this month are used up; they start again on the 1st (UTC)`,
        );
        outcome = failure(refused.message);
      } else if (
        !(release = await slot(fn, planLimits.functionConcurrency, limits.deadlineMs + 5000, event.id))
      ) {
        refused = functionConcurrency(
          `The project is at its plan's limit of functions running at once (${planLimits.functionConcurrency}); retry shortly`,
        );
        outcome = failure(refused.message);
      } else {
        try {
          // A test run (not recorded) starts from the module alone, apart from the live calls.
          outcome = await runtimeCall(fn, trigger, event, limits, caller, record);
        } catch (err) {
          if (err instanceof ApiError && NOT_RUN_CODES.includes(err.code)) {
            refused = err;
            outcome = failure(err.message);
          } else {
            deps.log.error({ err, functionId: fn.id }, 'function invocation failed');
            outcome = failure('the invocation failed inside the platform');
          }
        } finally {
          await release().catch(() => undefined);
        }
      }
      outcome = { ...outcome, durationMs: Math.max(outcome.durationMs, Date.now() - started) };
      if (record) {
        deps.count?.(fn.projectId, 'functionInvocations', 1);
        deps.count?.(fn.projectId, 'functionMs', outcome.durationMs);
      }
      let invocationId: string | undefined;
      if (record) {
        const at = new Date();
        const refusal = outcome.status === 'ok' ? refusalOf(outcome.value) : undefined;
        invocationId = await entries.add({
          projectId: fn.projectId,
          functionId: fn.id,
          trigger,
          version: fn.version,
          status: refusal ? 'refused' : outcome.status,
          durationMs: outcome.durationMs,
          error: outcome.error ?? null,
          refusal: refusal ?? null,
          request: requestOf(event, caller),
          logs: outcome.logs,
          at,
          expiresAt: new Date(at.getTime() + planLimits.functionLogDays * 24 * 3600 * 1000),
        });
      }
      if (refused) throw refused;
      return { ...outcome, invocationId };
    },

    /**
     * Charges a client's change that queues after-triggers to its budget of the day, once per
     * function it will run, when the change is announced (before it is written): a refusal is
     * the writer's 429 and nothing is written (after-triggers.ts).
     */
    async chargeAfter(projectId: string, caller: InvocationCaller, planLimits: PlanLimits, runs: number) {
      for (let i = 0; i < runs; i++)
        await chargeCaller(projectId, caller, planLimits.functionInvocationsPerCallerPerDay);
    },

    /**
     * A JavaScript version just saved: an instance is readied in this process's pool (the pool
     * starts if it had not), so neither its first call nor a test run waits for a cold start.
     */
    prepare(fn: RunnableFunction, planLimits: PlanLimits): void {
      const hosted = deps.hosted();
      if (fn.runtime.type !== 'javascript' || !fn.enabled || !hosted?.runtime.prepare) return;
      const limits = invocationLimits(planLimits);
      hosted.runtime.prepare({
        projectId: fn.projectId,
        functionId: fn.id,
        version: fn.version,
        codeHash: fn.codeHash ?? '',
        code: fn.runtime.code,
        ...openedEnv(fn),
        limits,
        // Nothing runs but the module's top level, which has no ctx.
        host: hosted.hostFor(fn, { keyKind: null, userId: null, depth: MAX_FUNCTION_DEPTH }, limits),
      });
    },

    /** Writes the buffered invocation log entries (reads of the log in this process call it first). */
    flushLog: () => entries.flush(),

    /** The process is stopping: the buffered log entries are written, unused monthly invocations given back. */
    async close(): Promise<void> {
      await Promise.all([entries.close(), month.close()]);
    },
  };
}

export type FunctionInvoker = ReturnType<typeof functionInvoker>;
