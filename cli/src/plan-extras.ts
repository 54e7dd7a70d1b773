// The steps outside collections: the project's settings, its webhooks (matched by URL; a new
// one gets a signing secret from the service, shown on the dashboard) and its custom mail
// templates (matched by name; system templates are the service's).
import { unwrap, type Api } from './api.js';
import type { components } from '../../generated/dashboard.js';
import type { ProjectDefinition, TemplateSpec, WebhookSpec } from './definition.js';

/** The file's template as the API takes it; the server checks the text-or-html rule (400). */
const content = (spec: TemplateSpec) => spec as components['schemas']['MailTemplateContent'];
import type { Step } from './plan.js';
import { settingsWidening, webhookWidening } from './plan-widening.js';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const path = (projectId: string) => ({ projectId });

export function settingsSteps(current: ProjectDefinition, desired: ProjectDefinition): Step[] {
  const keys = (Object.keys(desired.settings) as (keyof ProjectDefinition['settings'])[]).filter(
    (key) => !same(current.settings[key], desired.settings[key]),
  );
  if (keys.length === 0) return [];
  return [
    {
      summary: 'update project settings',
      changes: keys.map(
        (key) =>
          `~ ${key} ${JSON.stringify(current.settings[key])} -> ${JSON.stringify(desired.settings[key])}`,
      ),
      destructive: [],
      widening: settingsWidening(current.settings, desired.settings),
      apply: async (api, projectId) => {
        await unwrap(
          api.PATCH('/api/projects/{projectId}', {
            params: { path: path(projectId) },
            body: { settings: desired.settings },
          }),
        );
      },
    },
  ];
}

async function webhookId(api: Api, projectId: string, url: string): Promise<string> {
  const { webhooks } = await unwrap(
    api.GET('/api/projects/{projectId}/webhooks', { params: { path: path(projectId) } }),
  );
  const found = webhooks.find((w) => w.url === url);
  if (!found) throw new Error(`webhook ${url} is gone`);
  return found.id;
}

export function webhookSteps(current: ProjectDefinition, desired: ProjectDefinition): Step[] {
  const now = new Map(current.webhooks.map((w) => [w.url, w]));
  const want = new Map(desired.webhooks.map((w) => [w.url, w]));
  const steps: Step[] = [];
  for (const [url, hook] of want) {
    const old = now.get(url);
    if (!old) {
      steps.push({
        summary: `create webhook ${url}`,
        changes: [
          `events ${hook.events.join(', ')}`,
          'its signing secret is on the dashboard (rotate it there to read it)',
        ],
        destructive: [],
        widening: [webhookWidening(url)],
        apply: async (api, projectId) => {
          await unwrap(
            api.POST('/api/projects/{projectId}/webhooks', { params: { path: path(projectId) }, body: hook }),
          );
        },
      });
      continue;
    }
    const keys = (Object.keys(hook) as (keyof WebhookSpec)[]).filter((key) => !same(old[key], hook[key]));
    if (keys.length === 0) continue;
    steps.push({
      summary: `update webhook ${url}`,
      changes: keys.map((key) => `~ ${key} ${JSON.stringify(old[key])} -> ${JSON.stringify(hook[key])}`),
      destructive: [],
      apply: async (api, projectId) => {
        const webhook = await webhookId(api, projectId, url);
        const body = Object.fromEntries(keys.map((key) => [key, hook[key]]));
        await unwrap(
          api.PATCH('/api/projects/{projectId}/webhooks/{webhookId}', {
            params: { path: { ...path(projectId), webhookId: webhook } },
            body,
          }),
        );
      },
    });
  }
  for (const url of now.keys()) {
    if (want.has(url)) continue;
    steps.push({
      summary: `delete webhook ${url}`,
      changes: ['its delivery log is deleted'],
      destructive: [{ id: `drop-webhook:${url}`, reason: 'its receiver stops getting events' }],
      apply: async (api, projectId) => {
        const webhook = await webhookId(api, projectId, url);
        await unwrap(
          api.DELETE('/api/projects/{projectId}/webhooks/{webhookId}', {
            params: { path: { ...path(projectId), webhookId: webhook } },
          }),
        );
      },
    });
  }
  return steps;
}

export function templateSteps(current: ProjectDefinition, desired: ProjectDefinition): Step[] {
  const steps: Step[] = [];
  for (const [name, spec] of Object.entries(desired.mailTemplates)) {
    const old: TemplateSpec | undefined = current.mailTemplates[name];
    if (old && same(old, spec)) continue;
    steps.push({
      summary: `${old ? 'update' : 'create'} mail template ${name}`,
      changes: (['subject', 'text', 'html'] as const)
        .filter((key) => old?.[key] !== spec[key])
        .map((key) => `${old ? '~' : '+'} ${key}`),
      destructive: [],
      apply: async (api, projectId) => {
        if (old)
          await unwrap(
            api.PUT('/api/projects/{projectId}/mail/templates/{templateName}', {
              params: { path: { projectId, templateName: name } },
              body: content(spec),
            }),
          );
        else
          await unwrap(
            api.POST('/api/projects/{projectId}/mail/templates', {
              params: { path: path(projectId) },
              body: { name, ...content(spec) },
            }),
          );
      },
    });
  }
  for (const name of Object.keys(current.mailTemplates)) {
    if (desired.mailTemplates[name]) continue;
    steps.push({
      summary: `delete mail template ${name}`,
      changes: [],
      destructive: [{ id: `drop-template:${name}`, reason: 'mail sent with it is refused' }],
      apply: async (api, projectId) => {
        await unwrap(
          api.DELETE('/api/projects/{projectId}/mail/templates/{templateName}', {
            params: { path: { projectId, templateName: name } },
          }),
        );
      },
    });
  }
  return steps;
}
