// The project list and the create form, with the plan's project limit shown before it bites. The
// two API keys are shown once, right after creation, with copy buttons and a warning.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useSession } from '../../session';
import { useCreateProject, useProjects } from '../../data/projects';
import { ErrorBox, Field, Link, Progress } from '../../components/ui';
import { KeysOnce } from '../../components/keys';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { isLimit, usePlanLabel } from '../../data/plans';

interface NewProjectForm {
  name: string;
  endUserSignIn: boolean;
}

export function ProjectsPage() {
  const { developer } = useSession();
  const projects = useProjects();
  const create = useCreateProject();
  const [keys, setKeys] = useState<{ projectId: string; publishable: string; secret: string } | null>(null);
  const form = useForm<NewProjectForm>({
    // Ready for end-user sign-in unless unticked: a first sign-up then needs nothing else.
    defaultValues: { name: '', endUserSignIn: true },
    // Checked as typed, so a name of spaces is named as such; sent trimmed.
    resolver: apiResolver<NewProjectForm>('createProject'),
  });
  const { errors, isSubmitting } = form.formState;

  const owned = projects.data?.filter((p) => p.ownerId === developer?.id).length;
  const limit = developer?.projectLimit;
  const full = owned !== undefined && isLimit(limit) && owned >= limit;
  const plan = usePlanLabel(developer?.plan);

  const submit = form.handleSubmit(async ({ name, endUserSignIn }) => {
    try {
      const created = await create.mutateAsync({ name: name.trim(), endUserSignIn });
      setKeys({ projectId: created.project.id, ...created.keys });
      form.reset();
    } catch (err) {
      showFailure(form, err, ['name']);
    }
  });

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
        {owned !== undefined && isLimit(limit) && (
          <p className={full ? 'warning' : 'muted'} data-testid="project-limit">
            {owned} of {limit} projects on {plan}.
            {full && ' Delete one of yours, or move to a larger plan, to create another.'}
          </p>
        )}
        <form onSubmit={submit} onChange={() => form.clearErrors('root')} className="inline" noValidate>
          <Field
            label="Project name"
            required
            maxLength={100}
            {...form.register('name')}
            error={errors.name?.message}
          />
          <button type="submit" disabled={isSubmitting || full}>
            {isSubmitting ? 'Creating…' : 'Create project'}
          </button>
          <div className="line">
            <label className="check">
              <input type="checkbox" {...form.register('endUserSignIn')} aria-describedby="sign-in-hint" />
              Ready for end-user sign-in
            </label>
            <p id="sign-in-hint" className="muted">
              Adds a <code>users</code> collection (email, password, name) so your app’s users can sign up
              with the publishable key at once. Add fields to it later.
            </p>
          </div>
        </form>
        <FormMessage errors={errors} />
      </section>
      {projects.isPending && <Progress label="Loading projects…" />}
      <ErrorBox error={projects.error} />
      {projects.data && projects.data.length === 0 && <p>No projects yet. Create your first one above.</p>}
      {projects.data && projects.data.length > 0 && (
        <ul className="tiles">
          {projects.data.map((p) => (
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
