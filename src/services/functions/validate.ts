// What a saved hook or function must satisfy beyond the request schema: the trigger's own fields
// (a collection for data triggers, `access` for callables, a cron expression no tighter than the
// plan allows), the runtime (an https URL that passes the restricted-host check, code within the
// plan's size), env secrets (names, sizes, count). Each failure is a 400 naming the field.
import { createHash } from 'node:crypto';
import { Cron } from 'croner';
import { badRequest } from '../../http/errors.js';
import { checkHost, type HostAllowance } from '../../lib/restricted-hosts.js';
import { urlProblem } from '../webhooks/http.js';
import type { OwnOrigins } from '../../lib/own-origins.js';
import type { PlanLimits } from '../types.js';
import {
  COLLECTION_TRIGGERS,
  SYNC_TRIGGERS,
  type FailurePolicy,
  type FunctionRuntime,
  type FunctionTrigger,
} from './types.js';

export const RESTRICTED_URL_MESSAGE =
  'The hook URL (runtime.url) points to a restricted host (an internal, private, link-local or metadata address, or a name that does not resolve): use a public https:// address, or localhost in the development profile.';
export const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;
export const ENV_VALUE_BYTES = 4096;
/** Runs of a cron expression looked at to find its shortest interval. */
const CRON_SAMPLE = 60;

const invalid = (path: string, message: string) =>
  badRequest(`${path} ${message}`, [{ path: `body.${path}`, message }]);

export interface HostRules {
  allowHttp: boolean;
  allowPrivate: HostAllowance;
  /** The platform's own origins, never a hook's target (src/lib/own-origins.ts). */
  own?: OwnOrigins;
}

/** The URL rules of webhooks: https (http where the operator allows it), no credentials, a public host. */
export async function checkHookUrl(url: string, rules: HostRules): Promise<void> {
  const problem = urlProblem(url, rules);
  if (problem)
    throw badRequest(`The hook URL (runtime.url) is refused. ${problem}`, [
      { path: 'body.runtime.url', message: problem },
    ]);
  const host = await checkHost(new URL(url).hostname, rules.allowPrivate);
  if (!host.ok)
    throw badRequest(
      RESTRICTED_URL_MESSAGE,
      [{ path: 'body.runtime.url', message: host.reason }],
      'RESTRICTED_HOST',
    );
  const own = await rules.own?.check(new URL(url), true);
  if (own)
    throw badRequest(
      `The hook URL (runtime.url) is refused. ${own}`,
      [{ path: 'body.runtime.url', message: own }],
      'RESTRICTED_HOST',
    );
}

/** The shortest gap, in seconds, between the next runs of a cron expression. */
export function shortestCronInterval(cron: Cron): number {
  const runs = cron.nextRuns(CRON_SAMPLE);
  let shortest = Infinity;
  for (let i = 1; i < runs.length; i++)
    shortest = Math.min(shortest, (runs[i]!.getTime() - runs[i - 1]!.getTime()) / 1000);
  return shortest;
}

export function parseCron(expression: string): Cron {
  // Five fields (minute precision): seconds would make the plan's interval easy to dodge.
  if (expression.trim().split(/\s+/).length !== 5)
    throw invalid('trigger.cron', 'must have five fields (minute hour day month weekday)');
  try {
    return new Cron(expression, { timezone: 'UTC', paused: true });
  } catch (err) {
    throw invalid('trigger.cron', `is not a cron expression (${(err as Error).message})`);
  }
}

export function checkTrigger(
  trigger: FunctionTrigger,
  limits: PlanLimits,
  collectionExists: (name: string) => boolean,
): FunctionTrigger {
  const { type } = trigger;
  const onCollection = COLLECTION_TRIGGERS.includes(type);
  if (onCollection) {
    if (!trigger.collection) throw invalid('trigger.collection', `is required for ${type}`);
    if (trigger.collection === 'users')
      throw invalid('trigger.collection', 'cannot be users (use beforeSignUp for sign-ups)');
    if (!collectionExists(trigger.collection))
      throw invalid('trigger.collection', `names no collection of the project (${trigger.collection})`);
  } else if (trigger.collection !== undefined) {
    throw invalid('trigger.collection', `is only for collection triggers, not ${type}`);
  }
  if (type === 'callable' && !trigger.access) throw invalid('trigger.access', 'is required for callable');
  if (type !== 'callable' && trigger.access !== undefined)
    throw invalid('trigger.access', `is only for callable, not ${type}`);
  if (type === 'schedule') {
    if (!trigger.cron) throw invalid('trigger.cron', 'is required for schedule');
    const shortest = shortestCronInterval(parseCron(trigger.cron));
    if (shortest < limits.functionCronMinSeconds)
      throw invalid(
        'trigger.cron',
        `runs every ${shortest} s; the plan's shortest interval is ${limits.functionCronMinSeconds} s`,
      );
  } else if (trigger.cron !== undefined) {
    throw invalid('trigger.cron', `is only for schedule, not ${type}`);
  }
  const out: FunctionTrigger = { type };
  if (onCollection) out.collection = trigger.collection;
  if (trigger.access) out.access = trigger.access;
  if (trigger.cron) out.cron = trigger.cron.trim().replace(/\s+/g, ' ');
  return out;
}

export async function checkRuntime(
  runtime: FunctionRuntime,
  limits: PlanLimits,
  rules: HostRules,
): Promise<FunctionRuntime> {
  if (runtime.type === 'http') {
    await checkHookUrl(runtime.url, rules);
    return { type: 'http', url: runtime.url };
  }
  const bytes = Buffer.byteLength(runtime.code);
  if (bytes > limits.functionCodeBytes)
    throw invalid('runtime.code', `is ${bytes} bytes; the plan allows ${limits.functionCodeBytes}`);
  return { type: 'javascript', code: runtime.code, privileged: runtime.privileged ?? false };
}

/** The env after `changes` (null removes a name), checked against the plan's count. */
export function mergeEnv(
  current: Record<string, string>,
  changes: Record<string, string | null>,
  limit: number,
  seal: (value: string) => string,
): Record<string, string> {
  const next = { ...current };
  for (const [name, value] of Object.entries(changes)) {
    if (!ENV_NAME.test(name))
      throw invalid(`env.${name}`, 'is not a secret name (capitals, digits and _, at most 64)');
    if (value === null) {
      delete next[name];
      continue;
    }
    if (Buffer.byteLength(value) > ENV_VALUE_BYTES)
      throw invalid(`env.${name}`, `is longer than ${ENV_VALUE_BYTES} bytes`);
    next[name] = seal(value);
  }
  if (Object.keys(next).length > limit)
    throw invalid('env', `holds ${Object.keys(next).length} secrets; the plan allows ${limit}`);
  return next;
}

export const isSync = (trigger: FunctionTrigger) =>
  (SYNC_TRIGGERS as readonly string[]).includes(trigger.type);

/** One hook per synchronous trigger and collection; anything else has a slot of its own. */
export const slotOf = (trigger: FunctionTrigger) => (id: string) =>
  isSync(trigger) ? `${trigger.type}:${trigger.collection ?? ''}` : `fn:${id}`;

/** Canonical JSON (keys sorted) so that the same definition always has the same hash. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

export const definitionHash = (def: {
  trigger: FunctionTrigger;
  runtime: FunctionRuntime;
  failurePolicy: FailurePolicy;
}) => sha256Hex(canonical(def));
