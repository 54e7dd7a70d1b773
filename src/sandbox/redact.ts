// Secrets out of captured text: a function's env values never appear in its logs or error, even
// when the code prints them, nor do the values removed or replaced in the env's last change (a
// module may have kept one from an earlier call). Values under four characters are left alone
// (redacting "1" or "on" would make every log unreadable and protect nothing). The env's revision
// is part of the key of a kept interpreter, so a changed env never meets the module state of the
// old one.
import { createHash } from 'node:crypto';
import type { SandboxJob } from './types.js';

export const REDACTED = '[redacted]';
const MIN_SECRET_LENGTH = 4;

export function redactor(
  env: Record<string, string>,
  retired: readonly string[] = [],
): (text: string) => string {
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = [...Object.values(env), ...retired]
    .filter((value) => typeof value === 'string' && value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return (text) => text;
  return (text) => secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);
}

/** Revisions already computed, by env object (the invoker hands the same one to a version's calls). */
const revisions = new WeakMap<Record<string, string>, string>();

/** A digest of the env (names and values), which changes with any change to it. */
export function envRevision(env: Record<string, string>): string {
  const known = revisions.get(env);
  if (known !== undefined) return known;
  const entries = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const revision = createHash('sha256').update(JSON.stringify(entries)).digest('base64url').slice(0, 22);
  revisions.set(env, revision);
  return revision;
}

/**
 * The job with its env's revision in its key: an interpreter kept from a call under another env
 * (a secret rotated or removed since) serves it no more, and the next call starts from the module.
 */
export function withEnvRevision(job: SandboxJob): SandboxJob {
  return job.key === undefined ? job : { ...job, key: `${job.key}/env:${envRevision(job.env)}` };
}
