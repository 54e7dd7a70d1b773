// The contract between the trigger service (hooks, HTTP runtime, write paths) and the hosted
// JavaScript runtime (src/sandbox). Fields may be added; none renamed or removed
// (/work/notes/contract.md): both sides build against this file at the same time.

export type InvocationStatus = 'ok' | 'error' | 'refused' | 'timeout' | 'memory' | 'crashed';

export interface InvocationLimits {
  /** Whole invocation, wall clock. */
  deadlineMs: number;
  /** Heap limit inside the runner. */
  memoryBytes: number;
  /** ctx.fetch calls per invocation. */
  maxFetches: number;
  /** ctx.db writes+reads per invocation. */
  maxDbCalls: number;
  /** Serialized return value. */
  maxResultBytes: number;
  /** Captured console output (truncated past it, marked). */
  maxLogBytes: number;
}

export interface LogLine {
  level: 'log' | 'info' | 'warn' | 'error';
  message: string;
  atMs: number;
}

export interface InvocationOutcome {
  status: InvocationStatus;
  /** JSON value returned by the code (status 'ok'). */
  value?: unknown;
  /** Stack mapped to the source lines where possible. */
  error?: { message: string; stack?: string };
  logs: LogLine[];
  durationMs: number;
}

/** What `ctx` offers hosted code, already bound to ONE project and ONE caller by the service. */
export interface HostedHost {
  db(op: {
    action: 'list' | 'get' | 'create' | 'update' | 'delete' | 'count' | 'aggregate';
    collection: string;
    id?: string;
    query?: Record<string, string>;
    body?: unknown;
    pipeline?: unknown[];
  }): Promise<unknown>;
  fetch(req: {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  }): Promise<{ status: number; headers: Record<string, string>; body: string }>;
}

export interface HostedInvocation {
  projectId: string;
  functionId: string;
  version: number;
  codeHash: string;
  code: string;
  /** e.g. 'beforeCreate', 'callable', 'schedule'. */
  trigger: string;
  /** JSON, shape per trigger (docs/functions.md, "Events"). */
  event: unknown;
  /** Decrypted secrets, only for this call. */
  env: Record<string, string>;
  /** Values removed or replaced in the env's last change: redacted from the call's logs. */
  retired?: string[];
  limits: InvocationLimits;
  host: HostedHost;
  /**
   * Whether the call may run in an interpreter kept from an earlier call of the same version (and
   * leave its own for the next one). False for a test run, which starts from the module alone.
   */
  reuse?: boolean;
}

export interface HostedRuntime {
  invoke(call: HostedInvocation): Promise<InvocationOutcome>;
  /** Readies an instance of a version just saved (its module evaluated), so its first call is warm. */
  prepare?(call: Omit<HostedInvocation, 'event' | 'trigger' | 'reuse'>): void;
  /** Whether this process runs functions already (its runners started): a save elsewhere then readies it here too. */
  started?(): boolean;
  close(): Promise<void>;
}
