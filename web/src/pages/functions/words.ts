// What the Functions pages say about a trigger, a runtime and an HTTP hook's circuit breaker.
import type { HostedFunction, TriggerType } from '../../data/functions';

export const TRIGGERS: { type: TriggerType; words: string }[] = [
  { type: 'beforeCreate', words: 'before a create; may change or refuse it' },
  { type: 'beforeUpdate', words: 'before an update or restore; may change or refuse it' },
  { type: 'beforeDelete', words: 'before a move to the trash; may refuse it' },
  { type: 'afterCreate', words: 'after a create' },
  { type: 'afterUpdate', words: 'after an update' },
  { type: 'afterDelete', words: 'after a delete' },
  { type: 'beforeSignUp', words: 'at an end user’s sign-up' },
  { type: 'tokenClaims', words: 'claims at log-in and refresh' },
  { type: 'callable', words: 'POST /api/functions/{name}' },
  { type: 'schedule', words: 'by a cron schedule' },
];

/** What else a trigger type needs: a collection, who may call it, or a schedule. */
export function needs(type: TriggerType): 'collection' | 'access' | 'cron' | undefined {
  if (/^(before|after)(Create|Update|Delete)$/.test(type)) return 'collection';
  if (type === 'callable') return 'access';
  if (type === 'schedule') return 'cron';
  return undefined;
}

/** "beforeCreate on posts", "callable by user", "schedule 0 * * * *". */
export function triggerWords({ trigger }: Pick<HostedFunction, 'trigger'>): string {
  const need = needs(trigger.type);
  if (need === 'collection') return `${trigger.type} on ${trigger.collection ?? '?'}`;
  if (need === 'access') return `callable (${trigger.access ?? '?'} access)`;
  if (need === 'cron') return `schedule ${trigger.cron ?? ''}`;
  return trigger.type;
}

export const runtimeWords = ({ runtime }: Pick<HostedFunction, 'runtime'>) =>
  runtime.type === 'http' ? `HTTP ${runtime.url}` : `JavaScript${runtime.privileged ? ', privileged' : ''}`;

/** A time of today as the browser's locale writes it ("10:42:35 AM"). */
const clock = (iso: string) => new Date(iso).toLocaleTimeString();

/** An HTTP hook's breaker in words; JavaScript has none. */
export function breakerWords(fn: Pick<HostedFunction, 'breaker'>): string {
  const b = fn.breaker;
  if (!b) return '—';
  if (b.state === 'open') {
    const until = b.retryAt ? ` until ${clock(b.retryAt)}, then one trial call goes through` : '';
    return `Open: calls fail at once${until} (after ${b.consecutiveFailures} failures in a row)`;
  }
  if (b.state === 'halfOpen') return 'Half-open: the next call is a trial';
  return b.consecutiveFailures
    ? `Closed (${b.consecutiveFailures} failure${b.consecutiveFailures === 1 ? '' : 's'} in a row)`
    : 'Closed: calls go through';
}

export const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 12) : '—');

/** An error as shown: its message, then the stack (mapped to the source lines for hosted code). */
export const errorWords = (error: { message: string; stack?: string }) =>
  error.stack && !error.stack.includes(error.message)
    ? `${error.message}\n${error.stack}`
    : (error.stack ?? error.message);

/** Shown to a member (the role the API answers with the project), who may read but not change. */
export const MEMBER_WORDS =
  'Only admins can add, change, test or delete functions. As a member, you can read them and their logs.';
