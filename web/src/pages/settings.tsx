// Project settings (admins): name, allowed origins, end-user auth, site URL; then storage, mail
// and webhooks; the project's AI provider key; and deletion.
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call } from '../api';
import { navigate } from '../router';
import { ErrorBox, Field, FieldError, Notice, Progress } from '../components/ui';
import { useAction } from '../hooks';
import { MailSection, StorageSection } from './integrations';
import { WebhooksSection } from './webhooks';
import { AiKeyForm } from '../components/ai-key';
import type { ProjectPageProps } from './project-shell';

export function SettingsPage({ project, reload }: ProjectPageProps) {
  const [name, setName] = useState(project.name);
  const [origins, setOrigins] = useState(project.settings.allowedOrigins.join('\n'));
  const [endUserAuth, setEndUserAuth] = useState(project.settings.endUserAuth);
  const [siteUrl, setSiteUrl] = useState(project.settings.siteUrl ?? '');
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const remove = useAction();
  const failure = save.error instanceof ApiFailure ? save.error : undefined;
  const originError = failure?.details.find((d) => d.path.startsWith('settings.allowedOrigins'))?.message;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void save.run(async () => {
      const allowedOrigins = origins
        .split(/[\s,]+/)
        .map((o) => o.trim())
        .filter(Boolean);
      await call(
        api.PATCH('/api/projects/{projectId}', {
          params: { path: { projectId: project.id } },
          body: { name, settings: { allowedOrigins, endUserAuth, siteUrl: siteUrl.trim() || null } },
        }),
      );
      setSaved(true);
      await reload();
    });
  };
  const destroy = () => {
    const typed = prompt(
      `This deletes the project, its database, files and keys. Type the project name (${project.name}) to confirm.`,
    );
    if (typed !== project.name) return;
    void remove.run(async () => {
      await call(api.DELETE('/api/projects/{projectId}', { params: { path: { projectId: project.id } } }));
      navigate('/');
    });
  };

  return (
    <>
      <h1>Settings</h1>
      <form onSubmit={submit} className="card" noValidate aria-labelledby="general-heading">
        <h2 id="general-heading">General</h2>
        <Field
          label="Project name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={failure?.forField('name')}
        />
        <div className="field">
          <label htmlFor="origins">Allowed origins (one per line)</label>
          <textarea
            id="origins"
            rows={3}
            value={origins}
            placeholder="https://app.example.com"
            onChange={(e) => setOrigins(e.target.value)}
            aria-invalid={originError ? true : undefined}
          />
          <small className="hint">
            Browsers on these origins may use the publishable key. Empty: any origin.
          </small>
          <FieldError message={originError} />
        </div>
        <label className="check">
          <input type="checkbox" checked={endUserAuth} onChange={(e) => setEndUserAuth(e.target.checked)} />
          End-user accounts (sign-up and log-in through /api/userAuth)
        </label>
        <Field
          label="Site URL"
          type="url"
          value={siteUrl}
          placeholder="https://app.example.com"
          hint="Links in end-user mails and social-login redirects stay on this origin."
          onChange={(e) => setSiteUrl(e.target.value)}
          error={failure?.forField('settings.siteUrl')}
        />
        <ErrorBox error={save.error} />
        {saved && <Notice>Settings saved.</Notice>}
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save settings'}
        </button>
      </form>
      <StorageSection project={project} />
      <MailSection project={project} />
      <WebhooksSection project={project} />
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
        <button type="button" className="danger" onClick={destroy} disabled={remove.busy}>
          Delete project
        </button>
        {remove.busy && <Progress label="Deleting the project and its data…" />}
        <ErrorBox error={remove.error} />
      </section>
    </>
  );
}
