// What the parts of end-user auth share, built once in index.ts, and the limits they apply.
import type { AuthHooks } from '../functions/auth-hooks.js';
import type { UsersRepo } from '../../db/users.js';
import type { DatabaseQuota } from '../data/quota.js';
import type { EventBus } from '../events.js';
import type { AuthGuard } from './guard.js';
import type { SessionsService } from './sessions.js';
import type { CodesService } from './codes.js';
import { ipKey, type Limit, type RateLimiter } from './rate-limits.js';

export interface UserAuthKit {
  guard: AuthGuard;
  /** Charges every write to `databaseUsed` (usage.ts). */
  users: UsersRepo;
  quota: DatabaseQuota;
  sessions: SessionsService;
  codes: CodesService;
  limits: RateLimiter;
  events: EventBus;
  signupsPerHour: number;
  /** beforeSignUp and tokenClaims (docs/functions.md). */
  hooks?: AuthHooks;
}

const MINUTE = 60;
export const LIMITS = {
  // Wrong guesses lock an account for the address that made them only (a guesser elsewhere
  // cannot lock the owner out); the much higher per-account ceiling slows a spread-out guesser.
  loginFailuresPerClient: { name: 'login-fail', max: 5, windowSeconds: 15 * MINUTE },
  loginFailuresPerEmail: { name: 'login-fail', max: 100, windowSeconds: 15 * MINUTE },
  loginFailuresPerIp: { name: 'login-fail', max: 50, windowSeconds: 15 * MINUTE },
  codeFailuresPerIp: { name: 'code-fail', max: 20, windowSeconds: 15 * MINUTE },
  passwordFailuresPerUser: { name: 'password-fail', max: 5, windowSeconds: 15 * MINUTE },
  resendVerification: { name: 'resend-verify', max: 1, windowSeconds: MINUTE },
  resendReset: { name: 'resend-reset', max: 1, windowSeconds: MINUTE },
  codeMailsPerIp: { name: 'code-mail', max: 20, windowSeconds: 60 * MINUTE },
} satisfies Record<string, Limit>;

const signupLimit = (max: number): Limit => ({ name: 'signup', max, windowSeconds: 60 * MINUTE });
/** What an address past its sign-ups of the hour is told, whichever way it signs up. */
export const TOO_MANY_SIGNUPS = 'Too many sign-ups from this address; try again later';

/**
 * Counts one sign-up of the address (USER_AUTH_SIGNUPS_PER_HOUR, per project and hour): the
 * email-and-password one and a new account by social login share it. 429 past it.
 */
export const takeSignup = (kit: UserAuthKit, projectId: string, ip: string) =>
  kit.limits.take(projectId, signupLimit(kit.signupsPerHour), ipKey(ip), TOO_MANY_SIGNUPS);

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
