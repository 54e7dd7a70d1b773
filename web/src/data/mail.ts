// Mail of a project: its settings (the month's count, the own SMTP server), its templates and a
// template's rendering with given variables.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';

export type MailTemplate = Schemas['MailTemplate'];
export type MailSmtpInput = Schemas['MailSmtpInput'];
export type MailTemplateInput = Schemas['MailTemplateInput'];
export type MailTemplateContent = Schemas['MailTemplateContent'];

const keys = {
  settings: (projectId: string) => ['mail', projectId, 'settings'] as const,
  templates: (projectId: string) => ['mail', projectId, 'templates'] as const,
  preview: (projectId: string, name: string, variables: string) =>
    ['mail', projectId, 'preview', name, variables] as const,
};

export function useMailSettings(projectId: string) {
  return useQuery({
    queryKey: keys.settings(projectId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}/mail', { params: { path: { projectId } }, signal })))
        .data,
  });
}

export function useMailTemplates(projectId: string) {
  return useQuery({
    queryKey: keys.templates(projectId),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/mail/templates', { params: { path: { projectId } }, signal }),
        )
      ).data,
  });
}

/** The rendering of a stored template with `variables` (JSON text); kept while the next one loads. */
export function useMailPreview(
  projectId: string,
  name: string,
  variables: Record<string, unknown> | undefined,
) {
  return useQuery({
    queryKey: keys.preview(projectId, name, JSON.stringify(variables ?? {})),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.POST('/api/projects/{projectId}/mail/templates/{templateName}/preview', {
            params: { path: { projectId, templateName: name } },
            body: { variables: variables ?? {} },
            signal,
          }),
        )
      ).data,
    enabled: variables !== undefined,
    placeholderData: keepPreviousData,
  });
}

export function useMailActions(projectId: string) {
  const client = useQueryClient();
  const params = { path: { projectId } };
  const settingsChanged = (data: unknown) => client.setQueryData(keys.settings(projectId), data);
  const templatesChanged = () => client.invalidateQueries({ queryKey: ['mail', projectId] });
  const named = (templateName: string) => ({ path: { projectId, templateName } });
  return {
    setSmtp: useMutation({
      mutationFn: async (body: MailSmtpInput) =>
        (await call(api.PUT('/api/projects/{projectId}/mail/smtp', { params, body }))).data,
      onSuccess: settingsChanged,
    }),
    removeSmtp: useMutation({
      mutationFn: async () =>
        (await call(api.DELETE('/api/projects/{projectId}/mail/smtp', { params }))).data,
      onSuccess: settingsChanged,
    }),
    createTemplate: useMutation({
      mutationFn: async (body: MailTemplateInput) =>
        (await call(api.POST('/api/projects/{projectId}/mail/templates', { params, body }))).data.template,
      onSuccess: templatesChanged,
    }),
    updateTemplate: useMutation({
      mutationFn: async ({ name, body }: { name: string; body: MailTemplateContent }) =>
        (
          await call(
            api.PUT('/api/projects/{projectId}/mail/templates/{templateName}', { params: named(name), body }),
          )
        ).data.template,
      onSuccess: templatesChanged,
    }),
    sendTest: useMutation({
      mutationFn: async ({ name, variables }: { name: string; variables: Record<string, unknown> }) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/mail/templates/{templateName}/test', {
              params: named(name),
              body: { variables },
            }),
          )
        ).data,
      onSuccess: () => client.invalidateQueries({ queryKey: keys.settings(projectId) }),
    }),
    deleteTemplate: useMutation({
      mutationFn: (name: string) =>
        call(api.DELETE('/api/projects/{projectId}/mail/templates/{templateName}', { params: named(name) })),
      onSuccess: templatesChanged,
    }),
  };
}
