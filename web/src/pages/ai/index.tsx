// The AI tools of a project (members): the Query Builder and the Collection Creator. They run on
// the project's AI key, the caller's, or the platform's with the plan's monthly limits.
import { useCollections } from '../../data/collections';
import { ErrorBox, Progress } from '../../components/ui';
import { QueryBuilder } from './query-builder';
import { CollectionCreator } from './collection-creator';
import type { ProjectPageProps } from '../project-shell';
import { isLimit } from '../../data/plans';

/** A monthly AI limit in words: its number, or no limit. */
const monthly = (limit: number | undefined) => (isLimit(limit) ? String(limit) : 'unlimited');

export function AiPage({ project }: ProjectPageProps) {
  const collections = useCollections(project.id);
  return (
    <>
      <h1>AI tools</h1>
      <p className="muted">
        {isLimit(project.limits.aiQueryBuilderPerMonth) || isLimit(project.limits.aiCollectionCreatorPerMonth)
          ? `On the platform key: ${monthly(project.limits.aiQueryBuilderPerMonth)} queries and ${monthly(project.limits.aiCollectionCreatorPerMonth)} collection conversations a month on this plan; a project or personal AI key has no such limit.`
          : 'This plan puts no monthly limit on the AI tools.'}
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
