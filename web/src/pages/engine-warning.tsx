// The project overview's warning while a collection has outgrown the embedded development
// database (GET .../collection-sizes: `embeddedEngineWarning`, null otherwise; docs/scale.md).
import { useCollectionSizes } from '../data/indexes';

export function EngineWarning({ projectId }: { projectId: string }) {
  const sizes = useCollectionSizes(projectId);
  const warning = sizes.data?.embeddedEngineWarning;
  if (!warning) return null;
  return (
    <section className="card warning" aria-labelledby="engine-heading" data-testid="engine-warning">
      <h2 id="engine-heading">This project has outgrown the development database</h2>
      <p>{warning}</p>
    </section>
  );
}
