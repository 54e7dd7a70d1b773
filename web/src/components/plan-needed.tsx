// A feature the project's plan does not include, in words that say what to do: the operator (who
// has no plan limits on their own projects) is told which page changes the owner's plan or this
// project's limit, never to ask the operator.
import { useSession } from '../session';
import { Link } from './ui';

export function PlanNeeded({ what }: { what: string }) {
  const operator = useSession().developer?.isOperator;
  return (
    <p className="muted">
      {what} needs the Pro plan.
      {operator && (
        <>
          {' '}
          This project’s owner is on another plan: move them to Pro on{' '}
          <Link to="/admin/developers">Operator › Developers</Link>, or lift this project’s limit on{' '}
          <Link to="/admin/projects">Operator › Projects</Link>.
        </>
      )}
    </p>
  );
}
