// A runner's ctx.db or ctx.fetch call, answered in the parent: counted against the call's limits,
// its argument's size checked before it is parsed, then handed to the host bound to the call's
// project and caller. Hosted code sees a client error's words, never anything internal.
import { hostError } from './outcome.js';
import type { HostCallMessage, HostReplyMessage } from './protocol.js';
import type { SandboxJob } from './types.js';
import { counted } from '../lib/words.js';

/** The host call's argument as JSON text, at most (a document body is far below it). */
export const MAX_HOST_ARG_BYTES = 4 * 1024 * 1024;

/** What the parent counts of one call in flight. */
export interface HostCallCounts {
  job: SandboxJob;
  dbCalls: number;
  fetches: number;
}

export async function answerHostCall(
  active: HostCallCounts,
  msg: HostCallMessage,
  reply: (answer: Omit<HostReplyMessage, 't' | 'run' | 'call'>) => void,
): Promise<void> {
  const limits = active.job.limits;
  const count = msg.kind === 'db' ? ++active.dbCalls : ++active.fetches;
  const max = msg.kind === 'db' ? limits.maxDbCalls : limits.maxFetches;
  if (count > max)
    return reply({
      error: {
        message: `ctx.${msg.kind}: at most ${counted(max, 'call')} per invocation`,
        code: 'FUNCTION_LIMIT',
      },
    });
  if (msg.arg.length > MAX_HOST_ARG_BYTES)
    return reply({
      error: { message: `ctx.${msg.kind}: the argument is larger than ${MAX_HOST_ARG_BYTES} bytes` },
    });
  try {
    const arg: unknown = JSON.parse(msg.arg);
    if (!arg || typeof arg !== 'object' || Array.isArray(arg))
      throw Object.assign(new Error(`ctx.${msg.kind}: the argument must be an object`), { status: 400 });
    const value = await (msg.kind === 'db'
      ? active.job.host.db(arg as Record<string, unknown>)
      : active.job.host.fetch(arg as Record<string, unknown>));
    reply({ value: JSON.stringify(value ?? null) });
  } catch (err) {
    reply({ error: hostError(err, msg.kind) });
  }
}
