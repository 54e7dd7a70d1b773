// Mail: sending on the public API (secret key), and on the dashboard the templates (system and
// custom), the project's own SMTP server and the monthly usage.
import type { operations as PublicOps } from '../../generated/public.js';
import type { operations as DashboardOps } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

export function mailSendHandlers({ mailApi }: Services) {
  const sendMail: Handler<PublicOps['sendMail']> = async ({ body }, ctx) => {
    const data = await mailApi.send(ctx, body);
    return { status: 200, body: { success: true, data, message: 'Mail sent' } };
  };
  return { sendMail };
}

export function mailDashboardHandlers({ projects, mailApi }: Services) {
  type Ops = DashboardOps;
  const ok = <T>(data: T, message = '') => ({ success: true as const, data, message });

  const getMailSettings: Handler<Ops['getMailSettings']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: ok(await mailApi.settings(project)) };
  };

  const setMailSmtp: Handler<Ops['setMailSmtp']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    await mailApi.smtp.set(project, await projects.limitsOf(project), body);
    return { status: 200, body: ok(await mailApi.settings(project), 'SMTP server saved and verified') };
  };

  const removeMailSmtp: Handler<Ops['removeMailSmtp']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    await mailApi.smtp.remove(project);
    return { status: 200, body: ok(await mailApi.settings(project), "Back to the platform's mail server") };
  };

  const listMailTemplates: Handler<Ops['listMailTemplates']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: ok(await mailApi.templates.list(project)) };
  };

  const createMailTemplate: Handler<Ops['createMailTemplate']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const template = await mailApi.templates.create(project, body.name, body);
    return { status: 201, body: ok({ template }, 'Template created') };
  };

  const getMailTemplate: Handler<Ops['getMailTemplate']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: ok({ template: await mailApi.templates.get(project, params.templateName) }) };
  };

  const updateMailTemplate: Handler<Ops['updateMailTemplate']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const template = await mailApi.templates.update(project, params.templateName, body);
    return { status: 200, body: ok({ template }, 'Template saved') };
  };

  const deleteMailTemplate: Handler<Ops['deleteMailTemplate']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    await mailApi.templates.remove(project, params.templateName);
    return { status: 200, body: ok({}, 'Template deleted') };
  };

  const previewMailTemplate: Handler<Ops['previewMailTemplate']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    const data = await mailApi.templates.preview(project, params.templateName, body.variables ?? {});
    return { status: 200, body: ok(data) };
  };

  const sendMailTemplateTest: Handler<Ops['sendMailTemplateTest']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await mailApi.sendTest(ctx, project, params.templateName, body.variables ?? {});
    return { status: 200, body: ok(data, 'Mail sent') };
  };

  return {
    getMailSettings,
    setMailSmtp,
    removeMailSmtp,
    listMailTemplates,
    createMailTemplate,
    getMailTemplate,
    updateMailTemplate,
    deleteMailTemplate,
    previewMailTemplate,
    sendMailTemplateTest,
  };
}
