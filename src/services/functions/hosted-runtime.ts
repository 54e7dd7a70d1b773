// The hosted-JavaScript runtime (`runtime: 'javascript'`): the contract's HostedRuntime over the
// sandbox's pool of runner processes (src/sandbox). The pool's per-project cap becomes a 429
// FUNCTION_CONCURRENCY here; everything else is the call's outcome.
import type { SandboxSettings } from '../../config.js';
import { functionConcurrency } from './answers.js';
import type { Logger } from '../../lib/logger.js';
import { SandboxPool } from '../../sandbox/pool.js';
import { FunctionConcurrencyError } from '../../sandbox/queue.js';
import type { HostedInvocation, HostedRuntime, InvocationOutcome } from './runtime-types.js';

export function hostedRuntime(
  settings: SandboxSettings,
  log?: Logger,
): HostedRuntime & { pool: SandboxPool } {
  const pool = new SandboxPool({
    ...settings,
    warn: (message, fields) => log?.warn(fields, message),
  });
  const keyOf = (call: Pick<HostedInvocation, 'projectId' | 'functionId' | 'version' | 'codeHash'>) =>
    `${call.projectId}/${call.functionId}/${call.version}/${call.codeHash}`;
  return {
    pool,
    prepare(call) {
      pool.prepare({
        projectId: call.projectId,
        code: call.code,
        key: keyOf(call),
        event: null,
        env: call.env,
        limits: call.limits,
        host: call.host as unknown as Parameters<SandboxPool['run']>[0]['host'],
      });
    },
    started: () => pool.runnerStates().length > 0,
    async invoke(call: HostedInvocation): Promise<InvocationOutcome> {
      try {
        const { status, value, error, logs, durationMs } = await pool.run({
          projectId: call.projectId,
          code: call.code,
          // One project's function version: a runner keeps its interpreter for this key only (the
          // pool adds the env's revision to it, src/sandbox/redact.ts).
          ...(call.reuse ? { key: keyOf(call) } : {}),
          event: call.event,
          env: call.env,
          ...(call.retired?.length ? { retired: call.retired } : {}),
          limits: call.limits,
          host: call.host as unknown as Parameters<SandboxPool['run']>[0]['host'],
        });
        return {
          status,
          ...(status === 'ok' ? { value } : {}),
          ...(error ? { error } : {}),
          logs,
          durationMs,
        };
      } catch (err) {
        if (err instanceof FunctionConcurrencyError) throw functionConcurrency(err.message);
        throw err;
      }
    },
    close: () => pool.close(),
  };
}
