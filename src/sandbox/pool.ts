// The warm pool of runner processes. One call per runner at a time; a fair queue in front (per
// project caps, round robin); the limits the interpreter cannot enforce on itself are enforced
// here, from outside: a deadline past which the runner is killed with SIGKILL, a watchdog on its
// resident memory, the sizes of what comes back. A runner that died, hit a limit or grew too big
// is replaced. Runners start on the first call and stay warm after it; they are started by a
// spawner process, never forked by the service itself (launcher.ts).
import { RunnerLauncher } from './launcher.js';
import type { FromRunner, HostCallMessage, ReadyMessage, ToRunner } from './protocol.js';
import { loadDeadlineMs } from './protocol.js';
import { answerHostCall } from './host-call.js';
import { failed, outcomeOf, residentBytes } from './outcome.js';
import { FairQueue } from './queue.js';
import {
  grown,
  keepLog,
  overMemory,
  warmKeyOf,
  type Active,
  type Runner,
  type Waiting,
} from './pool-runner.js';
import { redactor, withEnvRevision } from './redact.js';
import type { PoolOptions, SandboxJob, SandboxOutcome } from './types.js';

const WATCH_INTERVAL_MS = 50;
/** The longest runners may take to start before a call waiting for them counts its deadline. */
const COLD_START_MAX_MS = 30_000;

export class SandboxPool {
  private readonly runners = new Set<Runner>();
  private readonly queue: FairQueue<Waiting>;
  private watchdog?: NodeJS.Timeout;
  private closing = false;
  private started = false;
  private seq = 0;
  private startFailures = 0;
  private readonly launcher: RunnerLauncher;
  /** Calls submitted while no runner was ready yet: their wait counts once one is (a cold pool). */
  private readonly coldWaiting = new Set<Waiting>();
  /** Calls a runner served with the interpreter it kept, and those that evaluated their module. */
  private readonly served = { warm: 0, cold: 0, prepared: 0 };

  constructor(private readonly options: PoolOptions) {
    this.queue = new FairQueue({ running: options.projectRunning, waiting: options.projectWaiting });
    this.launcher = new RunnerLauncher([String(options.wasmMemoryBytes)], options.warn);
  }

  /** Runs one call. Throws FunctionConcurrencyError at once when its project is at its cap. */
  run(submitted: SandboxJob): Promise<SandboxOutcome> {
    if (this.closing) return Promise.resolve(failed('crashed', 'The function runtime is shutting down', 0));
    const job = withEnvRevision(submitted);
    return new Promise<SandboxOutcome>((resolve) => {
      const waiting: Waiting = { job, submittedAt: Date.now(), resolve };
      this.queue.push(job.projectId, waiting);
      // Runners starting (the first call of the process) are not the caller's time: the wait
      // counts from when one is ready.
      if ([...this.runners].some((r) => r.ready)) this.armGiveUp(waiting);
      else {
        // Bounded still, should runners never come (and the timer keeps the process alive).
        this.coldWaiting.add(waiting);
        this.armGiveUp(waiting, COLD_START_MAX_MS);
      }
      this.start();
      this.dispatch();
    });
  }

  /**
   * Readies an interpreter of a version just saved on an idle runner (the pool starts if it had
   * not), so its first call is warm; nothing when a runner holds it already. Never throws.
   */
  prepare(job: SandboxJob): void {
    if (job.key === undefined || this.closing) return;
    const key = warmKeyOf(withEnvRevision(job));
    if ([...this.runners].some((r) => r.warmKey === key)) return;
    this.run({ ...job, prepare: true }).catch(() => undefined);
  }

  /** How calls were served: warm (the kept interpreter), cold (the module evaluated), prepared. */
  servedCounts(): { warm: number; cold: number; prepared: number } {
    return { ...this.served };
  }

  private armColdWaiting(): void {
    for (const waiting of this.coldWaiting) this.armGiveUp(waiting);
    this.coldWaiting.clear();
  }

  /** A call that cannot get a runner within its own deadline fails rather than wait forever. */
  private armGiveUp(waiting: Waiting, startingMs = 0): void {
    const { job } = waiting;
    clearTimeout(waiting.giveUp);
    waiting.giveUp = setTimeout(() => {
      this.coldWaiting.delete(waiting);
      if (this.queue.remove(job.projectId, waiting)) {
        waiting.resolve(
          failed('timeout', `No runner was free within ${job.limits.deadlineMs} ms`, waiting.submittedAt),
        );
      }
    }, job.limits.deadlineMs + startingMs);
  }

  /** Starts the runners now and resolves once they are all ready (tests and benches). */
  async warm(): Promise<void> {
    this.start();
    while ([...this.runners].filter((r) => r.ready && !r.retired).length < this.options.runners) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Process ids of the runners, and whether each is in a call (tests kill one mid-call). */
  runnerStates(): { pid: number; busy: boolean }[] {
    return [...this.runners]
      .filter((r) => r.proc.pid !== undefined)
      .map((r) => ({ pid: r.proc.pid!, busy: !!r.active }));
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.watchdog);
    this.coldWaiting.clear();
    for (const waiting of this.queue.drain()) {
      clearTimeout(waiting.giveUp);
      waiting.resolve(failed('crashed', 'The function runtime is shutting down', 0));
    }
    for (const runner of [...this.runners]) {
      if (runner.active)
        this.finish(runner, failed('crashed', 'The function runtime is shutting down', 0), true);
    }
    // Every runner killed, the spawner too.
    await this.launcher.close();
  }

  private start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    for (let i = 0; i < this.options.runners; i++) this.spawn();
    this.watchdog = setInterval(() => this.watch(), WATCH_INTERVAL_MS);
    this.watchdog.unref();
  }

  /**
   * Starts a runner (an empty environment, the lowest CPU priority: spawner.ts). Idle runners do
   * not keep the service's process alive; a call in flight does, by its timer.
   */
  private spawn(): void {
    if (this.closing) return;
    const runner: Runner = {
      proc: this.launcher.launch({
        ready: () => this.onReady(runner),
        message: (msg) => this.onMessage(runner, msg),
        exit: (code, signal) => this.onExit(runner, code, signal),
      }),
      ready: false,
      lastUsed: 0,
    };
    this.runners.add(runner);
  }

  private onExit(runner: Runner, code: number | null, signal: NodeJS.Signals | null): void {
    this.runners.delete(runner);
    if (runner.active) {
      this.options.warn?.('function runner stopped during a call', { pid: runner.proc.pid, code, signal });
      this.finish(
        runner,
        failed('crashed', 'The runner process stopped during the call', runner.active.startedAt),
      );
    }
    if (this.closing) return;
    if (!runner.ready && !runner.retired) {
      this.startFailures++;
      // Runners fail to start (a broken install): waiting for them is no longer a cold start.
      this.armColdWaiting();
    }
    // A runner that cannot even start (a broken install) is retried at a slow pace, not in a loop.
    const delay = this.startFailures > 3 ? 1000 : 0;
    setTimeout(() => {
      this.spawn();
      this.dispatch();
    }, delay).unref();
  }

  private onReady(runner: Runner): void {
    if (!this.runners.has(runner)) return;
    runner.ready = true;
    runner.readyRss = residentBytes(runner.proc.pid);
    this.startFailures = 0;
    this.dispatch();
    this.armColdWaiting();
  }

  private onMessage(runner: Runner, msg: Exclude<FromRunner, ReadyMessage>): void {
    if (!this.runners.has(runner)) return;
    if (msg.t === 'host') void this.hostCall(runner, msg);
    else if (msg.t === 'log' && runner.active?.id === msg.run) keepLog(runner.active, msg.line);
    else if (msg.t === 'started' && runner.active?.id === msg.run) this.armKill(runner, runner.active);
    else if (msg.t === 'done' && runner.active?.id === msg.id) {
      runner.warmKey = msg.kept ? warmKeyOf(runner.active.job) : undefined;
      this.finish(
        runner,
        outcomeOf(msg, runner.active.startedAt, runner.active.job.limits.maxResultBytes),
        msg.recycle ||
          msg.status === 'timeout' ||
          msg.status === 'crashed' ||
          (msg.status === 'memory' && grown(runner, this.options.rssLimitBytes)),
      );
    }
  }

  /**
   * Gives waiting calls (in the queue's fair order) to idle runners: to one that kept the call's
   * function warm, else to one that keeps none, else to the one idle longest.
   */
  private dispatch(): void {
    for (;;) {
      let idle: Runner[] | undefined;
      for (const runner of this.runners)
        if (runner.ready && !runner.active && !runner.retired) (idle ??= []).push(runner);
      if (!idle) return;
      const next = this.queue.take();
      if (!next) return;
      const key = warmKeyOf(next.item.job);
      const runner =
        (key !== undefined ? idle.find((r) => r.warmKey === key) : undefined) ??
        idle.find((r) => r.warmKey === undefined) ??
        idle.reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a));
      this.assign(runner, next.item);
    }
  }

  /**
   * Kills the runner past the call's deadline (and the grace): armed as the call is sent (a cold
   * call's module evaluation has that deadline too), armed again when the runner says the call
   * itself starts (`started`).
   */
  private armKill(runner: Runner, active: Active, loading = false): void {
    clearTimeout(active.killTimer);
    const { id, job, startedAt } = active;
    const limitMs = loading ? loadDeadlineMs(job.limits.deadlineMs) : job.limits.deadlineMs;
    active.killTimer = setTimeout(() => {
      if (runner.active?.id !== id) return;
      this.options.warn?.('function runner killed past the deadline', { pid: runner.proc.pid });
      this.finish(
        runner,
        failed('timeout', `The function ran past its deadline of ${job.limits.deadlineMs} ms`, startedAt),
        true,
      );
    }, limitMs + this.options.graceMs);
  }

  private assign(runner: Runner, waiting: Waiting): void {
    clearTimeout(waiting.giveUp);
    this.coldWaiting.delete(waiting);
    const { job } = waiting;
    const id = ++this.seq;
    const startedAt = Date.now();
    runner.active = {
      ...waiting,
      id,
      startedAt,
      killTimer: undefined as unknown as NodeJS.Timeout,
      dbCalls: 0,
      fetches: 0,
      logs: [],
      logBytes: 0,
    };
    const warm = job.key !== undefined && runner.warmKey === warmKeyOf(job);
    this.armKill(runner, runner.active, !warm);
    this.served[job.prepare ? 'prepared' : warm ? 'warm' : 'cold']++;
    const message: ToRunner = {
      t: 'run',
      id,
      ...(job.key !== undefined ? { key: job.key } : {}),
      ...(job.prepare ? { prepare: true as const } : {}),
      // A runner that kept this key's interpreter has the code already.
      ...(warm ? {} : { code: job.code }),
      event: JSON.stringify(job.event ?? null),
      env: job.env,
      limits: {
        deadlineMs: job.limits.deadlineMs,
        memoryBytes: job.limits.memoryBytes,
        stackBytes: this.options.stackBytes,
        maxResultBytes: job.limits.maxResultBytes,
        maxLogBytes: job.limits.maxLogBytes,
      },
    };
    runner.proc.send(message, () => {
      if (runner.active?.id === id)
        this.finish(runner, failed('crashed', 'The runner could not be reached', startedAt), true);
    });
  }

  /** Ends the runner's call; a retired runner is killed (its exit starts a replacement). */
  private finish(runner: Runner, outcome: SandboxOutcome, retire = false): void {
    const active = runner.active;
    if (!active) return;
    runner.active = undefined;
    runner.lastUsed = Date.now();
    clearTimeout(active.killTimer);
    this.queue.finished(active.job.projectId);
    const redact = redactor(active.job.env, active.job.retired);
    active.resolve({
      ...outcome,
      queuedMs: active.startedAt - active.submittedAt,
      // The lines streamed during the call: a call killed here (deadline, memory) keeps them too.
      logs: [...active.logs, ...outcome.logs].map((line) => ({ ...line, message: redact(line.message) })),
      ...(outcome.error
        ? {
            error: {
              message: redact(outcome.error.message),
              ...(outcome.error.stack ? { stack: redact(outcome.error.stack) } : {}),
            },
          }
        : {}),
    });
    if (retire || overMemory(runner, this.options.rssLimitBytes)) this.retire(runner);
    this.dispatch();
  }

  private retire(runner: Runner): void {
    runner.retired = true;
    runner.proc.kill();
  }

  /** The parent's memory limit: a busy runner past the RSS limit is killed during the call. */
  private watch(): void {
    for (const runner of this.runners) {
      if (!runner.active) continue;
      const rss = residentBytes(runner.proc.pid);
      if (rss !== undefined && rss > this.options.rssLimitBytes) {
        this.options.warn?.('function runner killed over its memory limit', { pid: runner.proc.pid, rss });
        this.finish(
          runner,
          failed('memory', 'The function used more memory than its runner may', runner.active.startedAt),
          true,
        );
      }
    }
  }

  private hostCall(runner: Runner, msg: HostCallMessage): Promise<void> {
    const active = runner.active;
    if (!active || active.id !== msg.run) return Promise.resolve();
    return answerHostCall(active, msg, (answer) => {
      if (runner.active?.id === msg.run)
        runner.proc.send({ t: 'host-reply', run: msg.run, call: msg.call, ...answer });
    });
  }
}
