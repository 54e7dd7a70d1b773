// The project list and the create form. The two API keys are shown once, right after creation,
// with copy buttons and a warning that they cannot be shown again.
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call } from '../api';
import { ErrorBox, Field, Link, Progress } from '../components/ui';
import { KeysOnce } from '../components/keys';
import { useAction, useLoad } from '../hooks';

export function ProjectsPage() {
  const projects = useLoad(async () => (await call(api.GET('/api/projects'))).data.projects, []);
  const [name, setName] = useState('');
  const [keys, setKeys] = useState<{ projectId: string; publishable: string; secret: string } | null>(null);
  const { busy, error, run } = useAction();
  const failure = error instanceof ApiFailure ? error : undefined;

  const create = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const created = await call(api.POST('/api/projects', { body: { name } }));
      setKeys({ projectId: created.data.project.id, ...created.data.keys });
      setName('');
      await projects.reload();
    });
  };

  return (
    <main id="main">
      <h1>Projects</h1>
      {keys && (
        <section aria-labelledby="keys-heading" className="card">
          <h2 id="keys-heading">Your new project’s API keys</h2>
          <KeysOnce publishable={keys.publishable} secret={keys.secret} />
          <p>
            <Link to={`/projects/${keys.projectId}`}>Open the project</Link>
          </p>
        </section>
      )}
      <section aria-labelledby="new-heading" className="card">
        <h2 id="new-heading">New project</h2>
        <form onSubmit={create} className="inline" noValidate>
          <Field
            label="Project name"
            value={name}
            required
            maxLength={100}
            onChange={(e) => setName(e.target.value)}
            error={failure?.forField('name')}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create project'}
          </button>
        </form>
        <ErrorBox error={error} />
      </section>
      {projects.loading && !projects.value && <Progress label="Loading projects…" />}
      <ErrorBox error={projects.error} />
      {projects.value && projects.value.length === 0 && <p>No projects yet. Create your first one above.</p>}
      {projects.value && projects.value.length > 0 && (
        <ul className="tiles">
          {projects.value.map((p) => (
            <li key={p.id}>
              <Link to={`/projects/${p.id}`}>
                <strong>{p.name}</strong>
                <span className="muted">
                  {p.role === 'admin' ? 'Admin' : 'Member'} · created{' '}
                  {new Date(p.createdAt).toLocaleDateString()}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
