// The AI tools of a project (members): the Query Builder and the Collection Creator. They run on
// the project's AI key, the caller's, or the platform's with the plan's monthly limits; with none
// of these the page says what the operator configures (or what a developer may add) instead of
// offering tools that could only refuse.
import { useCollections } from '../../data/collections';
import { useAiStatus } from '../../data/ai';
import { ErrorBox, Link, Progress } from '../../components/ui';
import { QueryBuilder } from './query-builder';
import { CollectionCreator } from './collection-creator';
import type { ProjectPageProps } from '../project-shell';

export function AiPage({ project }: ProjectPageProps) {
  const collections = useCollections(project.id);
  const status = useAiStatus(project.id);
  const source = status.data?.keySource;
  return (
    <>
      <h1>AI tools</h1>
      <ErrorBox error={status.error ?? collections.error} />
      {status.isPending && <Progress label="Loading…" />}
      {status.data && source === null && (
        <section className="card" aria-labelledby="ai-setup-heading">
          <h2 id="ai-setup-heading">The AI tools need a provider key</h2>
          <p>
            This installation has no platform AI key, so the Query Builder and the Collection Creator have
            nothing to run on yet.
          </p>
          <p>
            <strong>Whoever runs the server</strong> turns them on for every project by setting{' '}
            <code>AI_PLATFORM_KEY</code> (a {status.data.providerName} API key; <code>AI_BASE_URL</code> and{' '}
            <code>AI_MODEL</code> point it at another OpenAI-compatible provider) and restarting the dashboard
            service.
          </p>
          <p>
            {status.data.ownKeyAllowed ? (
              <>
                Or bring your own key: a project key in{' '}
                <Link to={`/projects/${project.id}/settings`}>Settings</Link> (admins) or an account key on
                your <Link to="/account">Account</Link> page.
              </>
            ) : (
              'On the Pro plan, a project or account key can be added instead.'
            )}
          </p>
        </section>
      )}
      {source === 'platform' && (
        <p className="muted">
          On the platform key: {project.limits.aiQueryBuilderPerMonth ?? '—'} queries and{' '}
          {project.limits.aiCollectionCreatorPerMonth ?? '—'} collection conversations a month on this plan; a
          project or personal AI key has no such limit.
        </p>
      )}
      {(source === 'project' || source === 'developer') && (
        <p className="muted">
          Running on {source === 'project' ? 'the project’s AI key' : 'your account’s AI key'}: no monthly
          limit.
        </p>
      )}
      {source && (
        <>
          {collections.isPending && <Progress label="Loading collections…" />}
          {collections.data && (
            <QueryBuilder projectId={project.id} collections={collections.data.map((c) => c.name)} />
          )}
          <CollectionCreator projectId={project.id} />
        </>
      )}
    </>
  );
}
