// The changes that widen access: they lose no data, so the destructive guard let them through,
// yet a line slipped into a reviewed file can open a project (a callable made public, a hook made
// privileged or fail-open, RLS off, a new allowed origin) or send its data to a new place (a
// webhook's or an HTTP hook's URL, the site URL of mailed links). push names them like destructive
// steps and applies them only when --allow-widening names them.
import type { CollectionSpec, ProjectDefinition } from './definition.js';
import type { FunctionSpec } from './functions.js';
import type { Destructive } from './plan.js';

type Settings = ProjectDefinition['settings'];
type Rls = CollectionSpec['rls'];

export function settingsWidening(now: Settings, want: Settings): Destructive[] {
  const out: Destructive[] = [];
  const listed = new Set(now.allowedOrigins);
  for (const origin of want.allowedOrigins)
    if (!listed.has(origin))
      out.push({
        id: `origin:${origin}`,
        reason: 'pages on it may use the publishable key and send credentials',
      });
  if (listed.size > 0 && want.allowedOrigins.length === 0)
    out.push({ id: 'origins:any', reason: 'an empty list lets pages on any origin use the publishable key' });
  if (!now.endUserAuth && want.endUserAuth)
    out.push({ id: 'end-user-auth', reason: 'anyone can sign up and log in as an end user' });
  if (want.siteUrl && want.siteUrl !== now.siteUrl)
    out.push({
      id: 'site-url',
      reason: 'links in end-user mails (with their tokens) and social log-in redirects go to it',
    });
  return out;
}

const strictness = (rls: Rls) => (!rls.enabled ? 0 : rls.mode === 'public-read' ? 1 : 2);

/**
 * An RLS change that only loosens it (off, or private to public-read, same owner field) widens
 * access; any other change may lock clients out, so it stays destructive (`rls:<collection>`).
 */
export function rlsChange(
  name: string,
  now: Rls,
  want: Rls,
): { destructive?: Destructive; widening?: Destructive } {
  if (JSON.stringify(now) === JSON.stringify(want)) return {};
  const looser = strictness(want) < strictness(now);
  if (looser && !want.enabled)
    return {
      widening: {
        id: `rls-off:${name}`,
        reason: 'anyone with the publishable key reads and writes every document',
      },
    };
  if (looser && want.ownerField === now.ownerField)
    return { widening: { id: `public-read:${name}`, reason: 'everyone can read every document' } };
  return { destructive: { id: `rls:${name}`, reason: 'changes who can read and write the documents' } };
}

/** A field of the users collection that loses `protected` (end users may write it) or `private` (others see it). */
export function fieldWidening(
  name: string,
  field: string,
  old: Record<string, unknown> | undefined,
  def: Record<string, unknown>,
): Destructive[] {
  const out: Destructive[] = [];
  if (old?.protected === true && def.protected !== true)
    out.push({ id: `unprotect:${name}.${field}`, reason: 'end users can set it on themselves' });
  if (old?.private === true && def.private !== true)
    out.push({ id: `unprivate:${name}.${field}`, reason: 'it is shown to others than its user' });
  return out;
}

export const webhookWidening = (url: string): Destructive => ({
  id: `webhook:${url}`,
  reason: "the project's events, documents included, are sent to it",
});

const ACCESS_RANK = { secret: 0, user: 1, public: 2 } as const;
const rank = (spec: FunctionSpec | undefined) =>
  spec?.trigger.type === 'callable' ? ACCESS_RANK[spec.trigger.access ?? 'secret'] : 0;
const httpUrl = (spec: FunctionSpec | undefined) =>
  spec?.runtime.type === 'http' ? spec.runtime.url : undefined;
const privileged = (spec: FunctionSpec | undefined) =>
  spec?.runtime.type === 'javascript' && spec.runtime.privileged === true;

/** A function (new when `old` is undefined) reachable by more callers, with more rights, or calling a new URL. */
export function functionWidening(
  name: string,
  old: FunctionSpec | undefined,
  spec: FunctionSpec,
): Destructive[] {
  const out: Destructive[] = [];
  const access = spec.trigger.type === 'callable' ? spec.trigger.access : undefined;
  // A new `user` callable is the ordinary case; a new `public` one or any raise is named.
  if (rank(spec) > rank(old) && (old || access === 'public'))
    out.push({
      id: `access:${name}`,
      reason: `anyone ${access === 'public' ? 'with the publishable key' : 'signed in'} can call it`,
    });
  if (privileged(spec) && !privileged(old))
    out.push({ id: `privileged:${name}`, reason: "its ctx.db has the secret key's rights" });
  if (old && old.failurePolicy === 'closed' && spec.failurePolicy === 'open')
    out.push({
      id: `fail-open:${name}`,
      reason: 'when it fails or times out, the write goes through unchecked',
    });
  const url = httpUrl(spec);
  if (url && url !== httpUrl(old))
    out.push({ id: `function-url:${name}`, reason: `its events (documents, end users) are sent to ${url}` });
  return out;
}
