// Email verification and password reset by 6-digit codes. The answers to "send me a code" are the
// same whether or not the address has an account; a reset signs out every session.
import { badRequest } from '../../http/errors.js';
import { hashPassword } from '../../lib/passwords.js';
import type { RequestContext } from '../context.js';
import { emailKey, ipKey, type Limit } from './rate-limits.js';
import { LIMITS, normalizeEmail, type UserAuthKit } from './kit.js';

const invalidCode = () => badRequest('Invalid or expired code', undefined, 'INVALID_CODE');
export const CODE_SENT_MESSAGE = 'If the email is registered, a code has been sent to it';

export function recoveryPart(kit: UserAuthKit) {
  const { guard, users, codes, limits } = kit;

  /** Per-address cooldown, then a per-IP budget of code mails (mail bombing). */
  async function throttleMail(ctx: RequestContext, projectId: string, cooldown: Limit, email: string) {
    await limits.take(
      projectId,
      cooldown,
      emailKey(email),
      'A code was sent recently; wait a minute before asking again',
    );
    await limits.take(
      projectId,
      LIMITS.codeMailsPerIp,
      ipKey(ctx.ip),
      'Too many codes requested from this address; try again later',
    );
  }

  /** A code check with the per-IP failure budget around it. */
  async function checkCode(
    ctx: RequestContext,
    projectId: string,
    purpose: 'verify-email' | 'password-reset',
    email: string,
    otp: string,
  ) {
    const message = 'Too many wrong codes; try again later';
    await limits.take(projectId, LIMITS.codeFailuresPerIp, ipKey(ctx.ip), message);
    if (!(await codes.check(projectId, purpose, email, otp))) throw invalidCode();
    await limits.release(projectId, LIMITS.codeFailuresPerIp, ipKey(ctx.ip));
  }

  return {
    async verifyEmail(ctx: RequestContext, rawEmail: string, otp: string) {
      const { project } = await guard.scope(ctx);
      const email = normalizeEmail(rawEmail);
      await checkCode(ctx, project.id, 'verify-email', email, otp);
      const found = await users.findByEmail(project.id, email);
      const updated =
        found && (await users.update(project.id, found.user._id, { set: { emailVerified: true } }));
      if (!updated?.ok) throw invalidCode();
      return { email, emailVerified: true };
    },

    async resendVerification(ctx: RequestContext, rawEmail: string) {
      const { project } = await guard.scope(ctx);
      const email = normalizeEmail(rawEmail);
      await throttleMail(ctx, project.id, LIMITS.resendVerification, email);
      const found = await users.findByEmail(project.id, email);
      if (found && found.user.emailVerified !== true)
        await codes.issue(project, 'verify-email', email, ctx.log);
    },

    async requestPasswordReset(ctx: RequestContext, rawEmail: string) {
      const { project } = await guard.scope(ctx);
      const email = normalizeEmail(rawEmail);
      await throttleMail(ctx, project.id, LIMITS.resendReset, email);
      const found = await users.findByEmail(project.id, email);
      if (found) await codes.issue(project, 'password-reset', email, ctx.log);
    },

    async resetPassword(ctx: RequestContext, rawEmail: string, otp: string, newPassword: string) {
      const { project } = await guard.scope(ctx);
      const email = normalizeEmail(rawEmail);
      await checkCode(ctx, project.id, 'password-reset', email, otp);
      const found = await users.findByEmail(project.id, email);
      if (!found) throw invalidCode();
      // The code came through the mailbox, so the address is proven as well.
      await users.update(project.id, found.user._id, {
        set: { emailVerified: true },
        passwordHash: await hashPassword(newPassword),
      });
      await kit.sessions.revokeAll(project.id, found.user._id);
    },
  };
}
