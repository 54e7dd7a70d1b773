// Mail templates of a project: the system templates (every plan, read-only) and custom ones
// (Pro), addressed by name; a system template's id is its name, a custom one's id an object id.
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.js';
import { renderTemplate, type Variables } from '../../mail/render.js';
import { SYSTEM_TEMPLATES, type SystemTemplate } from '../../mail/templates.js';
import type { MailTemplateFields, MailTemplatesRepo, StoredMailTemplate } from '../../db/mail-templates.js';
import type { PlanLimits, Project } from '../types.js';

export const CUSTOM_TEMPLATES_MESSAGE =
  'Custom mail templates are a Pro feature. Please upgrade to continue.';

export interface TemplateView {
  id: string;
  name: string;
  system: boolean;
  description: string | null;
  subject: string;
  text: string | null;
  html: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export type ResolvedTemplate = { view: TemplateView; source: MailTemplateFields };

const systemView = (t: SystemTemplate): TemplateView => ({
  id: t.name,
  name: t.name,
  system: true,
  description: t.description,
  subject: t.subject,
  text: t.text,
  html: t.html,
  createdAt: null,
  updatedAt: null,
});

const customView = (t: StoredMailTemplate): TemplateView => ({
  id: t.id,
  name: t.name,
  system: false,
  description: null,
  subject: t.subject,
  text: t.text,
  html: t.html,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

const systemTemplate = (name: string) =>
  Object.prototype.hasOwnProperty.call(SYSTEM_TEMPLATES, name) ? SYSTEM_TEMPLATES[name] : undefined;

export interface TemplateInput {
  subject: string;
  text?: string | null;
  html?: string | null;
}

function fieldsOf(input: TemplateInput): MailTemplateFields {
  const text = input.text || null;
  const html = input.html || null;
  if (!text && !html) {
    throw badRequest('A template needs text or html (or both)', [
      { path: 'body.text', message: 'text or html is required' },
    ]);
  }
  return { subject: input.subject, text, html };
}

export function mailTemplatesService(repo: MailTemplatesRepo, limitsOf: (p: Project) => Promise<PlanLimits>) {
  async function requireCustom(project: Project): Promise<void> {
    if (!(await limitsOf(project)).customMailTemplates)
      throw forbidden(CUSTOM_TEMPLATES_MESSAGE, 'PRO_FEATURE');
  }

  async function get(project: Project, name: string): Promise<TemplateView> {
    const system = systemTemplate(name);
    if (system) return systemView(system);
    const custom = await repo.findByName(project.id, name);
    if (!custom) throw notFound(`Mail template "${name}" not found`, 'TEMPLATE_NOT_FOUND');
    return customView(custom);
  }

  return {
    async list(project: Project) {
      const custom = await repo.list(project.id);
      return {
        templates: [...Object.values(SYSTEM_TEMPLATES).map(systemView), ...custom.map(customView)],
        customTemplatesAllowed: (await limitsOf(project)).customMailTemplates,
      };
    },

    get,

    async create(project: Project, name: string, input: TemplateInput): Promise<TemplateView> {
      await requireCustom(project);
      if (systemTemplate(name))
        throw conflict(`"${name}" is the name of a system template`, 'TEMPLATE_EXISTS');
      const created = await repo.create(project.id, name, fieldsOf(input));
      if (!created) throw conflict(`A mail template named "${name}" exists already`, 'TEMPLATE_EXISTS');
      return customView(created);
    },

    async update(project: Project, name: string, input: TemplateInput): Promise<TemplateView> {
      await requireCustom(project);
      if (systemTemplate(name)) throw forbidden('System templates cannot be changed', 'SYSTEM_TEMPLATE');
      const updated = await repo.update(project.id, name, fieldsOf(input));
      if (!updated) throw notFound(`Mail template "${name}" not found`, 'TEMPLATE_NOT_FOUND');
      return customView(updated);
    },

    async remove(project: Project, name: string): Promise<void> {
      if (systemTemplate(name)) throw forbidden('System templates cannot be deleted', 'SYSTEM_TEMPLATE');
      if (!(await repo.delete(project.id, name))) {
        throw notFound(`Mail template "${name}" not found`, 'TEMPLATE_NOT_FOUND');
      }
    },

    async preview(project: Project, name: string, variables: Variables) {
      const template = await get(project, name);
      return {
        template: { id: template.id, name: template.name, system: template.system },
        ...render(template, variables),
      };
    },

    /**
     * The template a send names (by name or id). Unknown is a 400 (the request is wrong, not a
     * missing resource); a custom template on a plan without them is a 403.
     */
    async resolve(
      project: Project,
      limits: PlanLimits,
      by: { name?: string; id?: string },
    ): Promise<ResolvedTemplate> {
      const key = by.name ?? by.id!;
      const system = systemTemplate(key);
      const custom = system
        ? undefined
        : by.name !== undefined
          ? await repo.findByName(project.id, key)
          : await repo.findById(project.id, key);
      if (!system && !custom) {
        const field = by.name !== undefined ? 'templateName' : 'templateId';
        throw badRequest(
          `Unknown mail template: ${field} "${key}"`,
          [{ path: `body.${field}`, message: 'names no template of this project' }],
          'TEMPLATE_NOT_FOUND',
        );
      }
      if (custom && !limits.customMailTemplates) throw forbidden(CUSTOM_TEMPLATES_MESSAGE, 'PRO_FEATURE');
      const view = system ? systemView(system) : customView(custom!);
      return { view, source: { subject: view.subject, text: view.text, html: view.html } };
    },
  };
}

function render(template: TemplateView, variables: Variables) {
  const out = renderTemplate(template, variables);
  return { subject: out.subject, text: out.text ?? null, html: out.html ?? null };
}

export type MailTemplatesService = ReturnType<typeof mailTemplatesService>;
