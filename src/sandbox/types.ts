// What the pool is given and gives back. The shapes follow the functions contract
// (src/services/functions/runtime-types.ts) without importing it: the sandbox sits below the
// services and knows nothing of projects beyond an id to be fair between.
import type { LogLine, RunStatus } from './protocol.js';

export interface SandboxLimits {
  /** Whole invocation, wall clock, from the moment a runner takes it. */
  deadlineMs: number;
  /** The interpreter's heap limit. */
  memoryBytes: number;
  maxFetches: number;
  maxDbCalls: number;
  /** The returned value as JSON text. */
  maxResultBytes: number;
  /** Captured console output; past it one line says it was cut. */
  maxLogBytes: number;
}

/** ctx.db and ctx.fetch, already bound to one project and one caller by the service. */
export interface SandboxHost {
  db(op: Record<string, unknown>): Promise<unknown>;
  fetch(req: Record<string, unknown>): Promise<unknown>;
}

export interface SandboxJob {
  projectId: string;
  /** An ES module whose default export is `async (event, ctx) => value`. */
  code: string;
  /**
   * The function version the code is (one project's, never shared between projects): a runner
   * may keep its interpreter for the next call with the same key, module state included.
   * Absent: the call runs in an interpreter of its own (a test run).
   */
  key?: string;
  /** Any JSON value. */
  event: unknown;
  /** Decrypted secrets for this call only; redacted from its logs and error. */
  env: Record<string, string>;
  /** Values removed or replaced in the env's last change: redacted too, never given to the code. */
  retired?: string[];
  limits: SandboxLimits;
  host: SandboxHost;
  /** Only evaluate the module and keep its interpreter for `key` (a version just saved). */
  prepare?: boolean;
}

export interface SandboxOutcome {
  status: RunStatus;
  value?: unknown;
  error?: { message: string; stack?: string };
  logs: LogLine[];
  /** From the moment a runner took the call to its answer. */
  durationMs: number;
  /** How long the call waited for a runner. */
  queuedMs: number;
}

export interface PoolOptions {
  /** Runner processes kept warm. */
  runners: number;
  /** Calls of one project running at once. */
  projectRunning: number;
  /** Calls of one project waiting for a runner; past running + waiting, FunctionConcurrencyError. */
  projectWaiting: number;
  /** The runner's WebAssembly memory cannot grow past this: the hard memory limit inside it. */
  wasmMemoryBytes: number;
  /** The interpreter's stack limit. */
  stackBytes: number;
  /** A runner whose resident memory passes this is killed (during a call: status 'memory') and replaced. */
  rssLimitBytes: number;
  /** How long past a call's deadline the parent waits before it kills the runner. */
  graceMs: number;
  /** Warnings about runners (exits, kills), for the service's log. */
  warn?: (message: string, fields: Record<string, unknown>) => void;
}
