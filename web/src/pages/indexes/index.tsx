// A collection's indexes: the list (implied and declared, with the plan's limit), the form that
// declares one, dropping a declared one after a confirmation, and the slow queries beside them.
import { useSession } from '../../session';
import { ErrorBox, Link, Notice, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { useCollectionDef } from '../../data/documents';
import { durationText, keysText, useIndexes, useIndexWrites, type Index } from '../../data/indexes';
import type { ProjectPageProps } from '../project-shell';
import { IndexForm } from './index-form';
import { SlowQueries } from './slow-queries';
import { isLimit, usePlanLabel } from '../../data/plans';

const SOURCE: Record<Index['source'], string> = {
  declared: 'Declared',
  'unique-field': 'Unique field',
  'owner-field': 'RLS owner field',
};

export function IndexesPage({ project, name }: ProjectPageProps & { name: string }) {
  const { developer } = useSession();
  const def = useCollectionDef(project.id, name);
  const list = useIndexes(project.id, name);
  const { create, drop } = useIndexWrites(project.id, name);
  const base = `/projects/${project.id}`;
  const declared = list.data?.indexes.filter((i) => i.source === 'declared').length ?? 0;
  // The limit is the owner's plan; a member sees it without the plan's name.
  const ownPlan = usePlanLabel(developer?.plan);
  const plan = developer && developer.id === project.ownerId ? ownPlan : "the project's plan";
  const full = list.data !== undefined && isLimit(list.data.limit) && declared >= list.data.limit;

  return (
    <>
      <h1>Indexes of “{name}”</h1>
      <p className="muted">
        <Link to={`${base}/collections/${encodeURIComponent(name)}`}>Schema</Link> ·{' '}
        <Link to={`${base}/data/${encodeURIComponent(name)}`}>Documents</Link> · <code>_id</code> is always
        indexed.
      </p>
      <section className="card" aria-labelledby="indexes-heading">
        <h2 id="indexes-heading">Indexes</h2>
        {list.data && isLimit(list.data.limit) && (
          <p className={full ? 'warning' : 'muted'} data-testid="index-limit">
            {declared} of {list.data.limit} indexes on {plan}.
            {full && ' Drop one to declare another, or move to a larger plan.'}
          </p>
        )}
        <ErrorBox error={list.error} />
        {list.isPending && <Progress label="Loading indexes…" />}
        {list.data?.indexes.length === 0 && <p>No indexes besides _id yet.</p>}
        {list.data && list.data.indexes.length > 0 && (
          <div className="table-wrap" tabIndex={0} role="region" aria-label={`Indexes of ${name}`}>
            <table>
              <caption className="sr-only">Indexes of {name}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Keys</th>
                  <th scope="col">Unique</th>
                  <th scope="col">Expires (TTL)</th>
                  <th scope="col">Source</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.indexes.map((ix) => (
                  <tr key={ix.name}>
                    <th scope="row" className="mono">
                      {ix.name}
                    </th>
                    <td>{keysText(ix.keys)}</td>
                    <td>{ix.unique ? 'Unique' : 'No'}</td>
                    <td>
                      {ix.expireAfterSeconds === undefined
                        ? '—'
                        : `${durationText(ix.expireAfterSeconds)} after the date`}
                    </td>
                    <td>{SOURCE[ix.source]}</td>
                    <td className="actions">
                      {ix.source === 'declared' ? (
                        <Confirm
                          trigger={
                            <button
                              type="button"
                              className="secondary danger"
                              aria-label={`Drop index ${ix.name}`}
                            >
                              Drop
                            </button>
                          }
                          title={`Drop the index ${ix.name}?`}
                          action="Drop index"
                          onConfirm={() => drop.mutate(ix.name)}
                        >
                          <p>
                            Lists filtered or sorted on <strong>{keysText(ix.keys)}</strong> scan the
                            collection again{ix.unique ? ', and its values may repeat' : ''}
                            {ix.expireAfterSeconds !== undefined ? ', and documents no longer expire' : ''}.
                          </p>
                        </Confirm>
                      ) : (
                        <span className="muted">Follows the schema</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <ErrorBox error={drop.error} />
        {drop.isSuccess && <Notice>Index {drop.data.data.name} dropped.</Notice>}
      </section>
      <section className="card">
        <ErrorBox error={def.error} />
        {def.data && (
          <IndexForm
            collection={def.data}
            full={full}
            onCreate={async (body) => {
              drop.reset();
              await create.mutateAsync(body);
            }}
          />
        )}
        {create.isSuccess && <Notice>Index {create.data.name} created.</Notice>}
      </section>
      <SlowQueries projectId={project.id} name={name} />
    </>
  );
}
