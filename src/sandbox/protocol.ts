// The messages between the pool (parent) and one runner (child process). Values cross as JSON
// text, never as objects: the parent checks a text's length before it parses it, and the runner
// parses inside the interpreter, where the memory limit counts it.

export type RunStatus = 'ok' | 'error' | 'timeout' | 'memory' | 'crashed';
export type LogLevel = 'log' | 'info' | 'warn' | 'error';

export interface LogLine {
  level: LogLevel;
  message: string;
  atMs: number;
}

export interface RunLimits {
  deadlineMs: number;
  memoryBytes: number;
  stackBytes: number;
  maxResultBytes: number;
  maxLogBytes: number;
}

/**
 * Evaluating a module (a cold start: a new interpreter, the module's top level) has the call's
 * deadline, but never less than this: a first interpreter in a fresh runner process is slower
 * than any later one, and that is not the caller's time. The call's deadline starts after it.
 */
export const MODULE_LOAD_MIN_MS = 1000;
export const loadDeadlineMs = (deadlineMs: number) => Math.max(deadlineMs, MODULE_LOAD_MIN_MS);

/** Parent -> runner: run one invocation. */
export interface RunMessage {
  t: 'run';
  id: number;
  /**
   * The function version (project, function, version, code hash), when its interpreter may be
   * kept for the next call of the same key; absent for a call that must run alone (a test run).
   */
  key?: string;
  /** The module's source; left out when the runner's kept interpreter has this key. */
  code?: string;
  /** JSON text of the event. */
  event: string;
  env: Record<string, string>;
  limits: RunLimits;
  /** Evaluate the module and keep the interpreter, without calling it (a version just saved). */
  prepare?: true;
}

/** Parent -> runner: the answer to one ctx.db / ctx.fetch call. */
export interface HostReplyMessage {
  t: 'host-reply';
  run: number;
  call: number;
  /** JSON text of the value, when the call succeeded. */
  value?: string;
  error?: HostCallError;
}

export interface HostCallError {
  message: string;
  code?: string;
  status?: number;
}

export type HostKind = 'db' | 'fetch';

/** Runner -> parent: hosted code called ctx.db or ctx.fetch. */
export interface HostCallMessage {
  t: 'host';
  run: number;
  call: number;
  kind: HostKind;
  /** JSON text of the argument. */
  arg: string;
}

/**
 * Runner -> parent: one line of the call's console, sent as it is written, so that a call the
 * parent kills (deadline, memory) keeps what it logged until then. Within the call's log cap.
 */
export interface LogMessage {
  t: 'log';
  run: number;
  line: LogLine;
}

/**
 * Runner -> parent: the module of a cold call is evaluated and the call itself starts now; its
 * deadline counts from here (the evaluation had a deadline of its own).
 */
export interface StartedMessage {
  t: 'started';
  run: number;
}

export interface DoneMessage {
  t: 'done';
  id: number;
  status: RunStatus;
  /** JSON text of the returned value (status 'ok'; `null` for undefined). */
  value?: string;
  error?: { message: string; stack?: string };
  /** Empty from a runner: its lines went ahead as LogMessages (Interpreter.run's own answer has them). */
  logs: LogLine[];
  logsTruncated: boolean;
  /** The runner's state is suspect (a host-side stack overflow, a failed dispose): replace it. */
  recycle: boolean;
  /** The runner kept this call's interpreter for the next call with the same key. */
  kept: boolean;
}

export type ToRunner = RunMessage | HostReplyMessage;

/** Runner -> parent, first on its connection: the one-time token it was started with. */
export interface ReadyMessage {
  t: 'ready';
  token: string;
  pid: number;
}

export type FromRunner = ReadyMessage | HostCallMessage | LogMessage | StartedMessage | DoneMessage;

/** Service -> spawner: start a runner (the entry file and its arguments; the token on its stdin). */
export interface SpawnMessage {
  t: 'spawn';
  token: string;
  entry: string;
  args: string[];
}

export type ToSpawner = SpawnMessage;

/** Spawner -> service: a runner was started, or has exited (or could not start). */
export type FromSpawner =
  | { t: 'spawned'; token: string; pid: number }
  | { t: 'exit'; token: string; code: number | null; signal: NodeJS.Signals | null };
