// The synchronous hooks of end-user auth: `beforeSignUp` (refuse a password sign-up, or set
// profile fields, which the sign-up validates again like the client's own) and `tokenClaims`
// (claims added to the access token at log-in and refresh, under the one claim `app`, at most
// 1 KiB). Which hook exists comes from the cached table: nothing is read when none does.
import { ApiError } from '../../http/errors.js';
import type { Project } from '../types.js';
import { isObject } from './answers.js';
import type { SyncHooks } from './hooks.js';

export const CLAIMS_CLAIM = 'app';
export const MAX_CLAIMS_BYTES = 1024;

export interface AuthHooks {
  /** The profile fields the hook sets (undefined: unchanged); throws when it refuses. */
  beforeSignUp(
    project: Project,
    event: { email: string; fields: Record<string, unknown>; provider: string },
    /** The client's address (the functions' per-caller budget counts it). */
    ip?: string,
  ): Promise<Record<string, unknown> | undefined>;
  /** Extra claims for a new access token of `userId`, or undefined. */
  claims(
    projectId: string,
    userId: string,
    reason: 'login' | 'refresh',
  ): Promise<Record<string, unknown> | undefined>;
}

export function authHooks(
  hooks: SyncHooks,
  projectById: (id: string) => Promise<Project | undefined>,
): AuthHooks {
  // Counted as a client's call: by its address at sign-up, by its end user at log-in and refresh.
  const caller = (project: Project, userId: string | null, ip?: string) => ({
    keyKind: 'publishable' as const,
    userId,
    project,
    ip,
  });
  return {
    async beforeSignUp(project, event, ip) {
      const fn = await hooks.find(project.id, 'beforeSignUp');
      if (!fn) return undefined;
      const answer = await hooks.run(fn, {
        project,
        caller: caller(project, null, ip),
        trigger: 'beforeSignUp',
        event,
        timeoutStatus: 503,
      });
      if (!answer || answer.fields === undefined) return undefined;
      if (!isObject(answer.fields))
        throw new ApiError(503, 'HOOK_UNAVAILABLE', "The beforeSignUp hook's fields are not an object");
      return answer.fields;
    },

    async claims(projectId, userId, reason) {
      const fn = await hooks.find(projectId, 'tokenClaims');
      if (!fn) return undefined;
      const project = await projectById(projectId);
      if (!project) return undefined;
      const answer = await hooks.run(fn, {
        project,
        caller: caller(project, userId),
        trigger: 'tokenClaims',
        event: { userId, reason },
        timeoutStatus: 503,
      });
      const claims = answer?.claims;
      if (claims === undefined || claims === null) return undefined;
      const problem = !isObject(claims)
        ? 'the claims are not an object'
        : Buffer.byteLength(JSON.stringify(claims)) > MAX_CLAIMS_BYTES
          ? `the claims are larger than ${MAX_CLAIMS_BYTES} bytes`
          : undefined;
      if (!problem) return claims as Record<string, unknown>;
      if (fn.failurePolicy === 'open') return undefined;
      throw new ApiError(503, 'HOOK_UNAVAILABLE', `The tokenClaims hook's answer was not usable: ${problem}`);
    },
  };
}
