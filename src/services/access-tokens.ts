// Personal access tokens: a developer's credential for scripts and CI on the dashboard API
// (`Authorization: Bearer mbp_...`). Created with a name, an expiry of at most a year, a scope
// (`read`: safe methods only; `write`: everything a session may do but change the account) and
// optionally a list of projects; shown once, stored as a SHA-256; each token has its own rate
// limit. Membership is still checked on every request (projects.requireAccess), so a developer
// removed from a project loses it through every token at once. Creating one asks for the current
// password (a stolen session alone must not mint a year-long credential) and mails the account;
// a password change revokes them all (accounts.changePassword).
import { badRequest, forbidden, notFound, tooManyRequests, unauthorized } from '../http/errors.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import type { Cache } from '../cache/index.js';
import type { RateBucket } from '../cache/rate-limit.js';
import type { AccessToken, AccessTokenScope, AccessTokensRepo } from '../db/access-tokens.js';
import type { DevelopersRepo } from '../db/developers.js';
import { DISABLED_MESSAGE } from './accounts.js';
import type { ProjectsRepo } from '../db/projects.js';
import type { Developer } from './types.js';
import type { Mailer } from '../mail/sender.js';
import { paragraphMail } from '../mail/escape.js';
import type { Logger } from '../lib/logger.js';
import { counted } from '../lib/words.js';

export const ACCESS_TOKEN_PREFIX = 'mbp_';
const SHOWN_PREFIX_LENGTH = ACCESS_TOKEN_PREFIX.length + 8;
export const MAX_TOKEN_LIFETIME_DAYS = 366;
export const MAX_LIVE_TOKENS = 50;
/** `lastUsedAt` is written at most this often per token and process. */
const TOUCH_EVERY_MS = 60_000;
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The request facet of a token: its limits on what the request may reach. */
export interface AccessTokenGrant {
  id: string;
  /** The token's first characters, as listed (the request log shows it). */
  prefix: string;
  scope: AccessTokenScope;
  projectIds: string[] | null;
}

export interface NewAccessToken {
  /** The developer's current password. */
  password: string;
  name: string;
  scope: AccessTokenScope;
  expiresAt: string;
  projectIds?: string[];
}

const day = (date: Date) => date.toISOString().slice(0, 10);

export interface TokenSafeguards {
  /** Throws 401/429 unless this is the developer's current password (accounts.confirmPassword). */
  confirmPassword: (developer: Developer, password: string) => Promise<void>;
  /** Tells the account of each new token. */
  mailer?: Mailer;
  dashboardUrl: string;
  log?: Logger;
}

export function accessTokensService(
  repo: AccessTokensRepo,
  developers: DevelopersRepo,
  projects: Pick<ProjectsRepo, 'listForDeveloper'>,
  cache: Cache,
  requestsPerMinute: number,
  safeguards: TokenSafeguards,
) {
  const touched = new Map<string, number>();
  const buckets = new Map<string, RateBucket>();
  const bucketOf = (id: string) => {
    let bucket = buckets.get(id);
    if (!bucket) {
      if (buckets.size >= 10_000) buckets.clear();
      buckets.set(id, (bucket = { key: `pat:${id}`, limit: requestsPerMinute, periodMs: 60_000 }));
    }
    return bucket;
  };

  async function charge(token: AccessToken) {
    const decision = await cache.consume([bucketOf(token.id)]);
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.states[0]!.retryAfterMs / 1000));
      throw tooManyRequests(
        seconds,
        `Rate limit reached: ${counted(requestsPerMinute, 'request')} per minute for this access token; retry after ${seconds} s`,
      );
    }
  }

  function touch(token: AccessToken, now: number) {
    if (now - (touched.get(token.id) ?? 0) < TOUCH_EVERY_MS) return;
    if (touched.size >= 10_000) touched.clear();
    touched.set(token.id, now);
    void repo.touch(token.id, new Date(now)).catch(() => undefined);
  }

  /** Sent after the answer: a slow mail server must not delay it. */
  function tellAccount(developer: Developer, token: AccessToken) {
    const { mailer } = safeguards;
    if (!mailer) return;
    const account = `${safeguards.dashboardUrl.replace(/\/$/, '')}/account`;
    const lines = [
      `A personal access token named “${token.name}” (${token.prefix}…) was created for your account: ` +
        `${token.scope === 'write' ? 'read and write' : 'read only'}, ` +
        `${token.projectIds ? `${token.projectIds.length} project(s)` : 'every project of yours'}, ` +
        `until ${day(token.expiresAt)}.`,
      'If this was not you, revoke it on the Account page and change your password there (a password change revokes every token):',
      account,
    ];
    void mailer
      .sendMail({
        to: developer.email,
        subject: 'A new access token for your account',
        ...paragraphMail(lines, account),
      })
      .catch((err: unknown) => safeguards.log?.error({ err }, 'could not send the new access token mail'));
  }

  return {
    async create(developer: Developer, input: NewAccessToken) {
      await safeguards.confirmPassword(developer, input.password);
      const expiresAt = new Date(input.expiresAt);
      const now = Date.now();
      if (expiresAt.getTime() <= now)
        throw badRequest('An access token must expire in the future: choose a later expiresAt', [
          { path: 'expiresAt', message: 'must be in the future' },
        ]);
      if (expiresAt.getTime() > now + MAX_TOKEN_LIFETIME_DAYS * 86_400_000)
        throw badRequest('An access token lives at most one year: choose an earlier expiresAt', [
          { path: 'expiresAt', message: `must be at most ${MAX_TOKEN_LIFETIME_DAYS} days from now` },
        ]);
      let projectIds: string[] | null = null;
      if (input.projectIds) {
        const member = new Set((await projects.listForDeveloper(developer.id)).map((p) => p.id));
        const unknown = input.projectIds.filter((id) => !member.has(id));
        if (unknown.length > 0)
          throw badRequest(`You are not a member of project ${unknown[0]}`, [
            { path: 'projectIds', message: `not a project of yours: ${unknown.join(', ')}` },
          ]);
        projectIds = [...new Set(input.projectIds)];
      }
      if ((await repo.countLive(developer.id)) >= MAX_LIVE_TOKENS)
        throw forbidden(
          `An account has at most ${MAX_LIVE_TOKENS} live access tokens; revoke one first`,
          'ACCESS_TOKEN_LIMIT',
        );
      const token = ACCESS_TOKEN_PREFIX + randomToken(32);
      const record = await repo.create({
        developerId: developer.id,
        name: input.name.trim(),
        prefix: token.slice(0, SHOWN_PREFIX_LENGTH),
        hash: sha256(token),
        scope: input.scope,
        projectIds,
        expiresAt,
      });
      tellAccount(developer, record);
      return { record, token };
    },

    list: (developer: Developer) => repo.list(developer.id),

    async revoke(developer: Developer, id: string): Promise<void> {
      if (!(await repo.revoke(developer.id, id)))
        throw notFound('Access token not found or already revoked', 'ACCESS_TOKEN_NOT_FOUND');
    },

    /** The developer and grant of a bearer token on a dashboard request, or a 401/403/429. */
    async authenticate(
      token: string,
      method: string,
    ): Promise<{ developer: Developer; accessToken: AccessTokenGrant }> {
      const found = token.startsWith(ACCESS_TOKEN_PREFIX) ? await repo.findByHash(sha256(token)) : undefined;
      if (!found) throw unauthorized('Invalid access token', 'INVALID_ACCESS_TOKEN');
      if (found.revokedAt)
        throw unauthorized(
          found.revokedByPasswordChange
            ? `This access token was revoked on ${day(found.revokedAt)}, when the account's password changed; create a new one on the Account page`
            : `This access token was revoked on ${day(found.revokedAt)}`,
          'ACCESS_TOKEN_REVOKED',
        );
      const now = Date.now();
      if (found.expiresAt.getTime() <= now)
        throw unauthorized(
          `This access token expired on ${day(found.expiresAt)}; create a new one on the Account page`,
          'ACCESS_TOKEN_EXPIRED',
        );
      const developer = await developers.findById(found.developerId);
      if (!developer) throw unauthorized('Invalid access token', 'INVALID_ACCESS_TOKEN');
      if (developer.disabled) throw unauthorized(DISABLED_MESSAGE, 'ACCOUNT_DISABLED');
      await charge(found);
      if (found.scope === 'read' && !SAFE_METHODS.has(method))
        throw forbidden(
          'This access token is read-only: it cannot change anything',
          'ACCESS_TOKEN_READ_ONLY',
        );
      touch(found, now);
      return {
        developer,
        accessToken: { id: found.id, prefix: found.prefix, scope: found.scope, projectIds: found.projectIds },
      };
    },
  };
}

export type AccessTokensService = ReturnType<typeof accessTokensService>;
