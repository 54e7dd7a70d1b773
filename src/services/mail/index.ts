// The mail capability: the public send API, templates (system and custom), a project's own SMTP
// server and its monthly usage, over the one sender of src/mail/.
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { mailTemplatesRepo } from '../../db/mail-templates.js';
import { mailUsageRepo } from '../../db/mail-usage.js';
import { mailSettingsRepo } from '../../db/mail-settings.js';
import type { Mailer } from '../../mail/sender.js';
import type { ProjectsService } from '../projects.js';
import type { Project } from '../types.js';
import { mailTemplatesService } from './templates.js';
import { mailSmtpService } from './smtp.js';
import { mailMonth, mailSendService } from './send.js';
import type { UsageCounter } from '../usage/counter.js';

export function mailServices(
  config: Config,
  platform: Database['platform'],
  platformMailer: Mailer,
  projects: ProjectsService,
  counter?: Pick<UsageCounter, 'add'>,
) {
  const usage = mailUsageRepo(platform);
  const settingsRepo = mailSettingsRepo(platform);
  const templatesRepo = mailTemplatesRepo(platform);
  const templates = mailTemplatesService(templatesRepo, projects.limitsOf);
  const smtp = mailSmtpService(config, settingsRepo, platformMailer);
  const { send, sendTest } = mailSendService({
    usage,
    templates,
    smtp,
    limitsOf: projects.limitsOf,
    onSent: (projectId) => counter?.add(projectId, 'mailSent'),
  });
  projects.onDelete(async (projectId) => {
    await Promise.all([
      templatesRepo.deleteAll(projectId),
      settingsRepo.delete(projectId),
      usage.deleteAll(projectId),
    ]);
  });

  return {
    send,
    sendTest,
    templates,
    smtp,
    /** The dashboard's view: the project's own server, what its plan allows, this month's usage. */
    async settings(project: Project) {
      const limits = await projects.limitsOf(project);
      const { month, resetsAt } = mailMonth(new Date());
      return {
        smtp: await smtp.get(project),
        ownSmtpAllowed: limits.ownMailKey,
        customTemplatesAllowed: limits.customMailTemplates,
        delivery: config.smtpUrl ? ('smtp' as const) : ('outbox' as const),
        usage: {
          month,
          used: await usage.count(project.id, month),
          limit: limits.mailPerMonth,
          resetsAt: resetsAt.toISOString(),
        },
      };
    },
  };
}

export type MailServices = ReturnType<typeof mailServices>;
