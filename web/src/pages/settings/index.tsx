// Project settings (admins): name, allowed origins, end-user auth, site URL; the project's AI
// provider key; and deletion, confirmed in the app's dialog by typing the project's name.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, call } from '../../api';
import { navigate } from '../../router';
import { useDeleteProject, useUpdateProject } from '../../data/projects';
import { ErrorBox, Field, FieldError, Notice, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { AiKeyForm } from '../../components/ai-key';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { CredentialsRefused } from './credentials-refused';
import type { ProjectPageProps } from '../project-shell';

interface Values {
  name: string;
  origins: string;
  endUserAuth: boolean;
  siteUrl: string;
}

const bodyOf = (v: Values) => ({
  name: v.name.trim(),
  settings: {
    allowedOrigins: v.origins
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean),
    endUserAuth: v.endUserAuth,
    siteUrl: v.siteUrl.trim() || null,
  },
});

/** The body's paths shown by this form's fields. */
const FIELD_OF: Record<string, keyof Values> = { name: 'name', 'settings.siteUrl': 'siteUrl' };
const fieldOf = (path: string) =>
  FIELD_OF[path] ?? (path.startsWith('settings.allowedOrigins') ? 'origins' : undefined);

export function SettingsPage({ project, reload }: ProjectPageProps) {
  const update = useUpdateProject(project.id);
  const remove = useDeleteProject(project.id);
  const [saved, setSaved] = useState(false);
  const form = useForm<Values>({
    defaultValues: {
      name: project.name,
      origins: project.settings.allowedOrigins.join('\n'),
      endUserAuth: project.settings.endUserAuth,
      siteUrl: project.settings.siteUrl ?? '',
    },
    // Checked as typed, so a name of spaces is named as such; the body's paths map to the fields.
    resolver: apiResolver<Values>('updateProject', (v) => ({ ...bodyOf(v), name: v.name }), fieldOf),
  });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async (values) => {
    setSaved(false);
    try {
      await update.mutateAsync(bodyOf(values));
      setSaved(true);
    } catch (err) {
      showFailure(form, err, fieldOf);
    }
  });
  const destroy = () =>
    remove.mutate(undefined, {
      onSuccess: () => navigate('/'),
    });

  return (
    <>
      <h1>Settings</h1>
      <CredentialsRefused
        project={project}
        onAdded={(saved) => form.setValue('origins', saved.settings.allowedOrigins.join('\n'))}
      />
      <form
        onSubmit={submit}
        onChange={() => {
          setSaved(false);
          form.clearErrors('root');
        }}
        className="card"
        noValidate
        aria-labelledby="general-heading"
      >
        <h2 id="general-heading">General</h2>
        <Field label="Project name" {...form.register('name')} error={errors.name?.message} />
        <div className="field">
          <label htmlFor="origins">Allowed origins (one per line)</label>
          <textarea
            id="origins"
            rows={3}
            placeholder="https://app.example.com"
            {...form.register('origins')}
            aria-invalid={errors.origins ? true : undefined}
          />
          <small className="hint">
            Browsers on these origins may use the publishable key, with credentials. Empty: any origin,
            without credentials (under npm start, pages on localhost get them too).
          </small>
          <FieldError message={errors.origins?.message} />
        </div>
        <label className="check">
          <input type="checkbox" {...form.register('endUserAuth')} />
          End-user accounts (sign-up and log-in through /api/userAuth)
        </label>
        <Field
          label="Site URL"
          type="url"
          placeholder="https://app.example.com"
          hint="Links in end-user mails and social-login redirects stay on this origin."
          {...form.register('siteUrl')}
          error={errors.siteUrl?.message}
        />
        <FormMessage errors={errors} />
        {saved && <Notice>Settings saved.</Notice>}
        <button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Saving…' : 'Save settings'}
        </button>
      </form>
      <AiKeyForm
        scope="project"
        hasKey={project.hasAiProviderKey}
        save={async (aiProviderKey) => {
          const saved = await call(
            api.PUT('/api/projects/{projectId}/byok', {
              params: { path: { projectId: project.id } },
              body: { aiProviderKey },
            }),
          );
          await reload();
          return saved.data.hasAiProviderKey;
        }}
      >
        <p className="muted">
          The provider key for the AI tools on this project: it takes precedence over every member’s personal
          key. Requests on it are not counted against the plan’s monthly AI limits. Pro plan.
        </p>
      </AiKeyForm>
      <section className="card danger-zone" aria-labelledby="danger-heading">
        <h2 id="danger-heading">Delete this project</h2>
        <p>Its database, collections, files and keys are removed. This cannot be undone.</p>
        <Confirm
          title={`Delete the project “${project.name}”?`}
          action="Delete project"
          typeToConfirm={project.name}
          onConfirm={destroy}
          trigger={
            <button type="button" className="danger" disabled={remove.isPending}>
              Delete project
            </button>
          }
        >
          <p>Its database, collections, files and keys are removed at once. This cannot be undone.</p>
        </Confirm>
        {remove.isPending && <Progress label="Deleting the project and its data…" />}
        <ErrorBox error={remove.error} />
      </section>
    </>
  );
}
