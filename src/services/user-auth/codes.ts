// One-time 6-digit codes sent by mail (email verification, password reset): kept as an HMAC under
// a key derived from ENCRYPTION_KEY (a plain hash of 10^6 values would be reversed at once),
// valid 15 minutes, 5 attempts, one live code per address and purpose. The platform sends these
// mails outside every project's mail quota, so they have caps of their own: per project and per
// recipient address (across projects) and hour; past one, the mail is not sent (and logged), and
// the answer stays the same, so it tells nothing about the address.
import { createHmac, randomInt } from 'node:crypto';
import { deriveKey, safeEqual } from '../../lib/secrets.js';
import { codeMail, type CodePurpose } from '../../mail/templates.js';
import type { Mailer } from '../../mail/sender.js';
import type { AuthTokensRepo } from '../../db/auth-tokens.js';
import type { Logger } from '../../lib/logger.js';
import type { Cache } from '../../cache/index.js';
import { sha256 } from '../../lib/secrets.js';

export const CODE_TTL_MINUTES = 15;
export const CODE_MAX_ATTEMPTS = 5;
const HOUR_SECONDS = 3600;

/** Caps of the code mails the platform sends (SYSTEM_MAIL_PER_PROJECT_PER_HOUR, ..._PER_ADDRESS_...). */
export interface CodeMailBudget {
  cache: Pick<Cache, 'incr'>;
  perProjectPerHour: number;
  perAddressPerHour: number;
}

export function codesService(
  repo: AuthTokensRepo,
  mailer: Mailer,
  encryptionKey: Buffer,
  budget?: CodeMailBudget,
) {
  const key = deriveKey(encryptionKey, 'end-user-auth-codes');
  const hashOf = (projectId: string, purpose: CodePurpose, email: string, code: string) =>
    createHmac('sha256', key).update(`${projectId}\n${purpose}\n${email}\n${code}`).digest('base64url');

  /** Counts one mail against both caps; false when either is passed (the mail is then not sent). */
  async function withinBudget(projectId: string, email: string): Promise<boolean> {
    if (!budget) return true;
    const [byProject, byAddress] = await Promise.all([
      budget.cache.incr(`codemail:p:${projectId}`, HOUR_SECONDS),
      budget.cache.incr(`codemail:to:${sha256(email)}`, HOUR_SECONDS),
    ]);
    return byProject <= budget.perProjectPerHour && byAddress <= budget.perAddressPerHour;
  }

  return {
    /**
     * Stores a new code (replacing the previous one) and sends it. The mail goes out after the
     * answer, so the response time does not tell whether the address has an account.
     */
    async issue(
      project: { id: string; name: string },
      purpose: CodePurpose,
      email: string,
      log: Logger,
    ): Promise<void> {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await repo.putCode({
        projectId: project.id,
        purpose,
        email,
        hash: hashOf(project.id, purpose, email, code),
        ttlMs: CODE_TTL_MINUTES * 60_000,
      });
      if (!(await withinBudget(project.id, email))) {
        log.warn({ projectId: project.id, purpose }, 'code mail not sent: hourly cap of system mail reached');
        return;
      }
      const mail = codeMail(purpose, code, project.name, CODE_TTL_MINUTES);
      void mailer.sendMail({ to: email, ...mail }).catch((err: unknown) => {
        log.error({ err, projectId: project.id, purpose }, 'could not send the code mail');
      });
    },

    /** Checks a code; counts the attempt first, so the sixth try fails even with the right code. */
    async check(projectId: string, purpose: CodePurpose, email: string, code: string): Promise<boolean> {
      const live = await repo.attemptCode(projectId, purpose, email, CODE_MAX_ATTEMPTS);
      if (!live) return false;
      const hash = hashOf(projectId, purpose, email, code);
      if (!safeEqual(live.hash, hash)) return false;
      return repo.consumeCode(projectId, purpose, email, hash);
    },
  };
}

export type CodesService = ReturnType<typeof codesService>;
