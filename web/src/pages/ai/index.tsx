// The AI tools of a project (members): the Query Builder and the Collection Creator. They run on
// the project's AI key, the caller's, or the platform's with the plan's monthly limits.
import { useCollections } from '../../data/collections';
import { ErrorBox, Progress } from '../../components/ui';
import { QueryBuilder } from './query-builder';
import { CollectionCreator } from './collection-creator';
import type { ProjectPageProps } from '../project-shell';

export function AiPage({ project }: ProjectPageProps) {
  const collections = useCollections(project.id);
  return (
    <>
      <h1>AI tools</h1>
      <p className="muted">
        On the platform key: {project.limits.aiQueryBuilderPerMonth ?? '—'} queries and{' '}
        {project.limits.aiCollectionCreatorPerMonth ?? '—'} collection conversations a month on this plan; a
        project or personal AI key has no such limit.
      </p>
      <ErrorBox error={collections.error} />
      {collections.isPending && <Progress label="Loading collections…" />}
      {collections.data && (
        <QueryBuilder projectId={project.id} collections={collections.data.map((c) => c.name)} />
      )}
      <CollectionCreator projectId={project.id} />
    </>
  );
}
