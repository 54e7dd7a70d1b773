// `POST /api/mail/send`: one message to one address, with explicit content or a template and
// variables. Each message takes a slot of the project's monthly quota first (one atomic
// conditional increment) and gives it back when the mail server refuses the message.
import { ApiError, badRequest, forbidden, unauthorized } from '../../http/errors.js';
import { renderString, renderTemplate, type Variables } from '../../mail/render.js';
import { newId } from '../../db/ids.js';
import type { MailUsageRepo } from '../../db/mail-usage.js';
import type { RequestContext } from '../context.js';
import type { PlanLimits, Project } from '../types.js';
import type { MailTemplatesService } from './templates.js';
import type { MailSmtpService } from './smtp.js';
import { counted } from '../../lib/words.js';

export interface SendInput {
  to: string;
  subject?: string;
  text?: string;
  html?: string;
  templateName?: string;
  templateId?: string;
  variables?: Variables;
  replyTo?: string;
}

/** The calendar month (UTC) a message counts in, and when its count resets. */
export function mailMonth(now: Date): { month: string; resetsAt: Date } {
  const month = now.toISOString().slice(0, 7);
  return { month, resetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)) };
}

function shapeProblems(input: SendInput): void {
  if (input.templateName !== undefined && input.templateId !== undefined) {
    throw badRequest('Send either templateName or templateId, not both', [
      { path: 'body.templateId', message: 'cannot be combined with templateName' },
    ]);
  }
  const templated = input.templateName !== undefined || input.templateId !== undefined;
  if (!templated && !input.text && !input.html) {
    throw badRequest('Mail needs content: text and/or html, or a templateName or templateId', [
      { path: 'body.text', message: 'text, html or a template is required' },
    ]);
  }
  if (!templated && !input.subject) {
    throw badRequest('subject is required when no template is used', [
      { path: 'body.subject', message: 'is required without a template' },
    ]);
  }
}

export interface MailSendDeps {
  usage: MailUsageRepo;
  templates: MailTemplatesService;
  smtp: MailSmtpService;
  limitsOf: (project: Project) => Promise<PlanLimits>;
  now?: () => Date;
  /** Told of every message the server accepted (usage accounting). */
  onSent?: (projectId: string) => void;
}

export function mailSendService({
  usage,
  templates,
  smtp,
  limitsOf,
  now = () => new Date(),
  onSent,
}: MailSendDeps) {
  return {
    async send(ctx: RequestContext, input: SendInput) {
      const { project, keyKind } = ctx.principal;
      if (!project) throw unauthorized('Missing API key', 'MISSING_API_KEY');
      if (keyKind !== 'secret')
        throw forbidden('Sending mail requires the secret key', 'SECRET_KEY_REQUIRED');
      return sendFor(ctx, project, input);
    },

    /** A template sent to the dashboard caller's own address (the dashboard's "send a test"). */
    async sendTest(ctx: RequestContext, project: Project, templateName: string, variables: Variables) {
      const developer = ctx.principal.developer;
      if (!developer) throw unauthorized('Missing credentials', 'UNAUTHORIZED');
      await templates.get(project, templateName); // an unknown name is a 404 here, as in the preview
      return sendFor(ctx, project, { to: developer.email, templateName, variables });
    },
  };

  async function sendFor(ctx: RequestContext, project: Project, input: SendInput) {
    shapeProblems(input);
    const limits = await limitsOf(project);
    const variables = input.variables ?? {};
    const template =
      input.templateName !== undefined || input.templateId !== undefined
        ? await templates.resolve(project, limits, { name: input.templateName, id: input.templateId })
        : undefined;
    const fromTemplate = template ? renderTemplate(template.source, variables) : undefined;
    // Explicit parts win over the template's; they are rendered too when variables are given.
    const explicit = (value: string | undefined, html: boolean) =>
      value !== undefined && input.variables ? renderString(value, variables, html) : value;
    const subject = explicit(input.subject, false)?.replace(/[\r\n]+/g, ' ') ?? fromTemplate?.subject ?? '';
    const text = explicit(input.text, false) ?? fromTemplate?.text;
    const html = explicit(input.html, true) ?? fromTemplate?.html;
    if (!subject.trim())
      throw badRequest('The subject is empty', [{ path: 'body.subject', message: 'is empty' }]);
    if (!text && !html)
      throw badRequest('The message is empty', [{ path: 'body.text', message: 'is empty' }]);

    const { month, resetsAt } = mailMonth(now());
    const used = await usage.take(project.id, month, limits.mailPerMonth);
    if (used === undefined) {
      const retryAfter = Math.max(1, Math.ceil((resetsAt.getTime() - now().getTime()) / 1000));
      throw new ApiError(
        429,
        'MAIL_QUOTA_EXCEEDED',
        `Monthly mail limit reached: this project may send ${counted(limits.mailPerMonth, 'message')} per month; ` +
          `the count resets on ${resetsAt.toISOString().slice(0, 10)} (UTC)`,
        undefined,
        { 'Retry-After': String(retryAfter) },
      );
    }
    try {
      const { mailer, own } = await smtp.mailerFor(project, limits);
      try {
        const sent = await mailer.sendMail({ to: input.to, subject, text, html, replyTo: input.replyTo });
        onSent?.(project.id);
        return {
          id: newId(),
          messageId: sent.messageId,
          template: template
            ? { id: template.view.id, name: template.view.name, system: template.view.system }
            : null,
          monthlyUsage: used,
          monthlyLimit: limits.mailPerMonth,
        };
      } catch (err) {
        ctx.log.warn({ err, projectId: project.id, own }, 'mail send failed');
        // The project's own server's answer helps its developer; the platform's stays internal.
        const reason = own && err instanceof Error ? `: ${err.message}` : '';
        throw new ApiError(502, 'MAIL_SEND_FAILED', `The mail server did not accept the message${reason}`);
      }
    } catch (err) {
      await usage.refund(project.id, month);
      throw err;
    }
  }
}
