// What comes back from a runner, read by the parent: the outcome of a call (its value parsed only
// after its size is checked), the words a failed host call may show hosted code, and a runner's
// resident memory for the watchdog.
import { readFileSync } from 'node:fs';
import type { DoneMessage, RunStatus } from './protocol.js';
import type { SandboxOutcome } from './types.js';

const PAGE_BYTES = 4096;

/** The outcome of a finished call; the value is parsed only once its size is known to fit. */
export function outcomeOf(msg: DoneMessage, startedAt: number, maxResultBytes: number): SandboxOutcome {
  const base = { logs: msg.logs, durationMs: Date.now() - startedAt, queuedMs: 0 };
  if (msg.status !== 'ok') return { ...base, status: msg.status, ...(msg.error ? { error: msg.error } : {}) };
  const text = msg.value ?? 'null';
  if (Buffer.byteLength(text) > maxResultBytes) {
    return {
      ...base,
      status: 'error',
      error: {
        message: `The returned value is larger than ${maxResultBytes} bytes as JSON`,
      },
    };
  }
  try {
    return { ...base, status: 'ok', value: JSON.parse(text) };
  } catch {
    return { ...base, status: 'error', error: { message: 'The returned value is not JSON' } };
  }
}

/** What hosted code sees of a failed host call: a client error's words, otherwise nothing internal. */
export function hostError(err: unknown, kind: string): { message: string; code?: string; status?: number } {
  const e = err as { message?: unknown; status?: unknown; code?: unknown };
  if (typeof e?.message === 'string' && typeof e.status === 'number' && e.status < 500) {
    return { message: e.message, status: e.status, ...(typeof e.code === 'string' ? { code: e.code } : {}) };
  }
  return { message: `ctx.${kind} failed` };
}

export function failed(status: RunStatus, message: string, since: number): SandboxOutcome {
  return { status, error: { message }, logs: [], durationMs: since ? Date.now() - since : 0, queuedMs: 0 };
}

/** A process's resident memory from /proc (Linux); undefined elsewhere or once it is gone. */
export function residentBytes(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return Number.isFinite(pages) ? pages * PAGE_BYTES : undefined;
  } catch {
    return undefined;
  }
}
