// The hooks and functions of an archive (`platform/functions.jsonl`, format version 2), checked
// one line at a time before a restore writes any: every field of the shape the functions
// repository stores, nothing else kept; each version's trigger, runtime and failure policy as the
// API would take them (names, collections, cron, code size within the target's plan), its hashes
// computed again here (the hosted runtime's cache key is the code's hash: never the archive's
// word), one name and one synchronous hook slot per project across the part.
import { forbidden } from '../../http/errors.js';
import { COLLECTION_NAME } from '../schema/field-definitions.js';
import {
  COLLECTION_TRIGGERS,
  TRIGGER_TYPES,
  VERSIONS_KEPT,
  type FunctionRuntime,
  type FunctionTrigger,
  type FunctionVersion,
  type StoredFunction,
} from '../functions/types.js';
import {
  definitionHash,
  ENV_NAME,
  parseCron,
  sha256Hex,
  shortestCronInterval,
  slotOf,
} from '../functions/validate.js';
import { recordFields, type Dates } from './restore-records.js';

/** What a function record may hold at most whatever the plan (the worker's pass, which has no plan). */
export const FUNCTION_CAPS = { codeBytes: 4 * 1024 * 1024, secrets: 1000, cronMinSeconds: 0 };
export type FunctionRules = typeof FUNCTION_CAPS;

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const HEX = /^[0-9a-f]{64}$/;
const ACCESS = ['public', 'user', 'secret'];
/** A sealed value of at most 4,096 bytes, base64 with its IV and tag, is well under this. */
const SEALED_MAX = 8192;

export type CheckedFunctionFields = Omit<StoredFunction, 'id' | 'projectId' | 'createdAt' | 'updatedAt'> & {
  disabledReason: string | null;
};

export interface CheckedFunction {
  id: string;
  fields: CheckedFunctionFields;
  /** The slot of its active version's trigger, given the id it is written under. */
  slot: (id: string) => string;
  dates: Dates;
}

type Doc = Record<string, unknown>;
type Fields = ReturnType<typeof recordFields>;

function checkTrigger(f: Fields, raw: unknown, at: string, rules: FunctionRules): FunctionTrigger {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return f.no(`${at}.trigger must be an object`);
  const t = raw as Doc;
  const type = t.type as FunctionTrigger['type'];
  if (!TRIGGER_TYPES.includes(type)) return f.no(`${at}.trigger.type is not a trigger`);
  const out: FunctionTrigger = { type };
  const extra = Object.keys(t).filter((k) => !['type', 'collection', 'access', 'cron'].includes(k));
  if (extra.length) f.no(`${at}.trigger has unknown fields (${extra.join(', ')})`);
  if (COLLECTION_TRIGGERS.includes(type)) {
    if (typeof t.collection !== 'string' || !COLLECTION_NAME.test(t.collection) || t.collection === 'users')
      f.no(`${at}.trigger.collection is not a collection name`);
    out.collection = t.collection as string;
  } else if (t.collection !== undefined) f.no(`${at}.trigger.collection is only for collection triggers`);
  if (type === 'callable') {
    if (!ACCESS.includes(t.access as string)) f.no(`${at}.trigger.access must be public, user or secret`);
    out.access = t.access as FunctionTrigger['access'];
  } else if (t.access !== undefined) f.no(`${at}.trigger.access is only for callable`);
  if (type === 'schedule') {
    if (typeof t.cron !== 'string' || t.cron.length > 200) return f.no(`${at}.trigger.cron must be a string`);
    let shortest = 0;
    try {
      shortest = shortestCronInterval(parseCron(t.cron));
    } catch {
      f.no(`${at}.trigger.cron is not a five-field cron expression`);
    }
    if (shortest < rules.cronMinSeconds)
      throw forbidden(
        `The backup holds a function that runs every ${shortest} s; the plan's shortest interval is ${rules.cronMinSeconds} s (${at})`,
        'PLAN_LIMIT',
      );
    out.cron = t.cron.trim().replace(/\s+/g, ' ');
  } else if (t.cron !== undefined) f.no(`${at}.trigger.cron is only for schedule`);
  return out;
}

function checkRuntime(f: Fields, raw: unknown, at: string, rules: FunctionRules): FunctionRuntime {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return f.no(`${at}.runtime must be an object`);
  const r = raw as Doc;
  if (r.type === 'http') {
    if (Object.keys(r).some((k) => k !== 'type' && k !== 'url')) f.no(`${at}.runtime has unknown fields`);
    const url = r.url;
    // The HTTP runtime checks the host again at every connection (restricted addresses).
    if (typeof url !== 'string' || url.length > 2048 || !/^https?:\/\//.test(url) || !URL.canParse(url))
      return f.no(`${at}.runtime.url must be an http(s) URL`);
    return { type: 'http', url };
  }
  if (r.type !== 'javascript') return f.no(`${at}.runtime.type must be http or javascript`);
  if (Object.keys(r).some((k) => !['type', 'code', 'privileged'].includes(k)))
    f.no(`${at}.runtime has unknown fields`);
  if (typeof r.code !== 'string') return f.no(`${at}.runtime.code must be a string`);
  if (typeof r.privileged !== 'boolean') return f.no(`${at}.runtime.privileged must be true or false`);
  const bytes = Buffer.byteLength(r.code);
  if (bytes > rules.codeBytes)
    throw forbidden(
      `The backup holds a function of ${bytes} bytes of code; the plan allows ${rules.codeBytes} (${at})`,
      'PLAN_LIMIT',
    );
  return { type: 'javascript', code: r.code, privileged: r.privileged };
}

function checkVersions(f: Fields, raw: unknown, rules: FunctionRules): FunctionVersion[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > VERSIONS_KEPT)
    return f.no(`versions must list 1 to ${VERSIONS_KEPT} versions`);
  let last = 0;
  return raw.map((v: unknown, i) => {
    const at = `versions.${i}`;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return f.no(`${at} must be an object`);
    const doc = v as Doc;
    const version = doc.version;
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version <= last)
      return f.no(`${at}.version must be a number above the one before`);
    last = version;
    if (typeof doc.sha256 !== 'string' || !HEX.test(doc.sha256)) f.no(`${at}.sha256 must be a SHA-256`);
    if (doc.codeHash !== null && (typeof doc.codeHash !== 'string' || !HEX.test(doc.codeHash)))
      f.no(`${at}.codeHash must be a SHA-256 or null`);
    if (doc.failurePolicy !== 'closed' && doc.failurePolicy !== 'open')
      f.no(`${at}.failurePolicy must be closed or open`);
    if (!(doc.createdAt instanceof Date)) f.no(`${at}.createdAt must be a date`);
    const trigger = checkTrigger(f, doc.trigger, at, rules);
    const runtime = checkRuntime(f, doc.runtime, at, rules);
    const failurePolicy = doc.failurePolicy as FunctionVersion['failurePolicy'];
    return {
      version,
      sha256: definitionHash({ trigger, runtime, failurePolicy }),
      codeHash: runtime.type === 'javascript' ? sha256Hex(runtime.code) : null,
      trigger,
      runtime,
      failurePolicy,
      createdAt: doc.createdAt as Date,
    };
  });
}

function checkEnv(f: Fields, raw: unknown, rules: FunctionRules): Record<string, string> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return f.no('envEnc must be an object');
  const entries = Object.entries(raw as Doc);
  if (entries.length > rules.secrets)
    throw forbidden(
      `The backup holds a function with ${entries.length} secrets; the plan allows ${rules.secrets}`,
      'PLAN_LIMIT',
    );
  for (const [name, value] of entries) {
    if (!ENV_NAME.test(name)) f.no(`envEnc has a name that is no secret name`);
    if (typeof value !== 'string' || value.length > SEALED_MAX) f.no(`envEnc.${name} must be a sealed value`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** One function record; `seen` holds the names and slots of the lines before it (one each per project). */
export function checkFunctionLine(
  doc: Doc,
  row: number,
  rules: FunctionRules,
  seen: Set<string>,
): CheckedFunction {
  const f = recordFields('functions', row, doc);
  const name = f.text('name', 64);
  if (!NAME.test(name)) f.no('name is not a function name');
  const versions = checkVersions(f, doc.versions, rules);
  const activeVersion = f.count('activeVersion');
  const latestVersion = f.count('latestVersion');
  const active = versions.find((v) => v.version === activeVersion);
  if (!active) f.no('activeVersion is not one of its versions');
  if (latestVersion !== versions.at(-1)!.version) f.no('latestVersion is not its last version');
  const rate = doc.rateLimitPerMinute ?? null;
  if (
    rate !== null &&
    (typeof rate !== 'number' || !Number.isSafeInteger(rate) || rate < 1 || rate > 1_000_000)
  )
    f.no('rateLimitPerMinute must be null or 1 to 1000000');
  const signing = f.maybeText('signingSecretEnc', 512);
  const slot = slotOf(active!.trigger);
  // A synchronous hook's slot does not depend on the id; any other's is its own.
  for (const key of [`name:${name}`, `slot:${slot('')}`]) {
    if (key.startsWith('slot:fn:')) continue;
    if (seen.has(key))
      f.no(`${key.startsWith('name') ? 'the name' : 'the hook slot'} is taken by an earlier line`);
    seen.add(key);
  }
  return {
    id: f.id(),
    fields: {
      name,
      enabled: f.bool('enabled') as boolean,
      activeVersion,
      latestVersion,
      versions,
      signingSecretEnc: signing,
      envEnc: checkEnv(f, doc.envEnc, rules),
      rateLimitPerMinute: rate as number | null,
      disabledReason: f.maybeText('disabledReason', 500),
    },
    slot,
    dates: f.dates(),
  };
}
